// expect object: has a section .init_array.00101
// A constructor with a priority has a section of its own.
#include <cstdio>
__attribute__((constructor(101))) static void early(void) { puts("before the grader"); }
