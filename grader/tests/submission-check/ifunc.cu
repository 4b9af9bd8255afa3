// expect object: as an ifunc, whose resolver runs before main
// A function chosen at load time: its resolver runs while the program loads, before main.
#include <cstdio>
static int real(void) { return 1; }
extern "C" void *choose(void) { puts("before the grader"); return (void *)real; }
static int chosen(void) __attribute__((ifunc("choose")));
int call(void) { return chosen(); }
