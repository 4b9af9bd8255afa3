// expect object: calls fopen, which a lab may not call
// expect object: calls open, which a lab may not call
// expect object: calls write, which a lab may not call
// expect object: calls unlink, which a lab may not call
// Writing the grader's record (or reading a solution) through files. (fwrite itself is allowed:
// the compiler writes fprintf(stderr, "text") with it, and without fopen it reaches only stdout
// and stderr: terminal-output.cu.)
#include <cstdio>
#include <fcntl.h>
#include <unistd.h>
void forge(void)
{
    FILE *record = fopen("records", "a");
    fwrite("passed\n", 1, 7, record);
    int fd = open("records", O_WRONLY | O_APPEND);
    write(fd, "passed\n", 7);
    unlink("records");
}
