// expect object: runs _ZL5earlyv before main (a constructor), which a lab may not do
// The same with gcc's attribute.
#include <cstdio>
__attribute__((constructor)) static void early(void) { puts("before the grader"); }
