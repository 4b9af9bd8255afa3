// expect object: calls setjmp, which a lab may not call
// expect object: calls longjmp, which a lab may not call
// Jumping back into the grader's code past its checks.
#include <csetjmp>
static jmp_buf place;
void mark(void) { if (setjmp(place) == 0) longjmp(place, 1); }
