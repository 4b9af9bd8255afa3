// expect object: calls _exit, which a lab may not call
// expect object: calls _Exit, which a lab may not call
// expect object: calls quick_exit, which a lab may not call
// Ending the test's process before the grader has checked anything. exit itself is allowed by
// name (nvcc's host copy of every __device__ function calls it), and abort with it (assert's):
// a test that exits or aborts never reaches its end, and fails at run time
// (grader/exploits/*/exit-*.cu, abort-where-wrong).
#include <cstdlib>
#include <unistd.h>
__device__ int twice(int x) { return 2 * x; }
__global__ void kernel(int *p) { *p = twice(*p); }
void leave(int how)
{
    if (how == 0) exit(0);
    if (how == 1) _exit(0);
    if (how == 2) _Exit(0);
    if (how == 3) quick_exit(0);
    abort();
}
