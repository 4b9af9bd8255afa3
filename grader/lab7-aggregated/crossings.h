/* Lab 7's functions as they cross to the worker that runs them (grader/crossing/crossing.h). */
#include "lab7.h"

#define LAB_CROSSINGS(X)                                                                       \
    X(3, (VOID, void), lab7_histogram_aggregated, (DEVICE, const char *, 0),                   \
      (VALUE, uint64_t, 0), (DEVICE, unsigned long long *, 0))                                 \
    X(3, (VOID, void), lab7_histogram_global_contiguous, (DEVICE, const char *, 0),            \
      (VALUE, uint64_t, 0), (DEVICE, unsigned long long *, 0))                                 \
    X(3, (VOID, void), lab7_histogram_global_aggregated, (DEVICE, const char *, 0),            \
      (VALUE, uint64_t, 0), (DEVICE, unsigned long long *, 0))
