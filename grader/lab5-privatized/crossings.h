/* Lab 5's functions as they cross to the worker that runs them (grader/crossing/crossing.h). */
#include "lab5.h"

#define LAB_CROSSINGS(X)                                                                       \
    X(3, (VOID, void), lab5_histogram_private_global, (DEVICE, const char *, 0),               \
      (VALUE, uint64_t, 0), (DEVICE, unsigned long long *, 0))                                 \
    X(3, (VOID, void), lab5_histogram_private_shared, (DEVICE, const char *, 0),               \
      (VALUE, uint64_t, 0), (DEVICE, unsigned long long *, 0))                                 \
    X(3, (VOID, void), lab5_histogram_reduced, (DEVICE, const char *, 0),                      \
      (VALUE, uint64_t, 0), (DEVICE, unsigned long long *, 0))
