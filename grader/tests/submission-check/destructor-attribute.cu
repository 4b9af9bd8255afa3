// expect object: has a section .fini_array
// After main: when the runner ends, after the last record.
#include <cstdio>
__attribute__((destructor)) static void late(void) { puts("after the grader"); }
