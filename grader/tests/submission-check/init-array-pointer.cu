// expect object: runs _ZL5earlyv before main (a constructor), which a lab may not do
// A pointer put in .init_array by hand.
#include <cstdio>
static void early(void) { puts("before the grader"); }
__attribute__((section(".init_array"), used)) static void (*run_early)(void) = early;
