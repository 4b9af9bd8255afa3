// expect object: calls syscall, which a lab may not call
// Any system call, through the C library's syscall().
#include <unistd.h>
#include <sys/syscall.h>
void say(void) { syscall(SYS_write, 1, "x\n", 2); }
