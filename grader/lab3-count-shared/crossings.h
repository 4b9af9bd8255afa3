/* Lab 3's function as it crosses to the worker that runs it (grader/crossing/crossing.h). */
#include "lab3.h"

#define LAB_CROSSINGS(X)                                                                       \
    X(3, (VOID, void), lab3_launch_shared_count, (DEVICE, unsigned long long *, 0),            \
      (VALUE, unsigned int, 0), (VALUE, unsigned int, 0))
