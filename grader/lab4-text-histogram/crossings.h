/* Lab 4's functions as they cross to the worker that runs them (grader/crossing/crossing.h). */
#include "lab4.h"

#define LAB_CROSSINGS(X)                                                                       \
    X(3, (VOID, void), lab4_histogram_sequential, (HOST_IN, const char *, a1),                 \
      (VALUE, uint64_t, 0), (HOST_OUT, unsigned long long *, HISTOGRAM_BINS))                  \
    X(3, (VOID, void), lab4_histogram_atomic, (DEVICE, const char *, 0), (VALUE, uint64_t, 0), \
      (DEVICE, unsigned long long *, 0))
