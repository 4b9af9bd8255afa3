/* Lab 2's functions as they cross to the worker that runs them (grader/crossing/crossing.h). */
#include "lab2.h"

#define LAB_CROSSINGS(X)                                                                       \
    X(3, (VOID, void), lab2_launch_atomic_count, (DEVICE, unsigned long long *, 0),            \
      (VALUE, unsigned int, 0), (VALUE, unsigned int, 0))                                      \
    X(3, (VOID, void), lab2_launch_cas_float_sum, (DEVICE, float *, 0),                        \
      (DEVICE, const float *, 0), (VALUE, unsigned int, 0))
