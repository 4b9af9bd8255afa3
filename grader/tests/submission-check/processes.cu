// expect object: calls fork, which a lab may not call
// expect object: calls system, which a lab may not call
// expect object: calls popen, which a lab may not call
// expect object: calls execl, which a lab may not call
// expect object: calls execve, which a lab may not call
// Other programs, which can do anything.
#include <cstdio>
#include <cstdlib>
#include <unistd.h>
void run(char **argv)
{
    if (fork() == 0) execl("/bin/sh", "sh", "-c", "true", (char *)0);
    system("true");
    popen("true", "r");
    execve("/bin/true", argv, argv);
}
