/* Lab 8's function as it crosses to the worker that runs it (grader/crossing/crossing.h). */
#include "lab8.h"

#define LAB_CROSSINGS(X)                                                                       \
    X(3, (VOID, void), lab8_histogram, (DEVICE, const char *, 0), (VALUE, uint64_t, 0),        \
      (DEVICE, unsigned long long *, 0))
