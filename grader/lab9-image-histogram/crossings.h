/* Lab 9's functions as they cross to the worker that runs them (grader/crossing/crossing.h). */
#include "lab9.h"

#define LAB_CROSSINGS(X)                                                                       \
    X(3, (VOID, void), lab9_histogram16_host, (HOST_IN, const uint32_t *, a1),                 \
      (VALUE, uint64_t, 0), (HOST_OUT, unsigned long long *, SMALL_HISTOGRAM_BINS))            \
    X(4, (VOID, void), lab9_histogram16_global, (DEVICE, const uint32_t *, 0),                 \
      (VALUE, uint64_t, 0), (DEVICE, unsigned long long *, 0), (VALUE, unsigned int, 0))       \
    X(4, (VOID, void), lab9_histogram16_shared, (DEVICE, const uint32_t *, 0),                 \
      (VALUE, uint64_t, 0), (DEVICE, unsigned long long *, 0), (VALUE, unsigned int, 0))       \
    X(3, (VOID, void), lab9_histogram256_private, (DEVICE, const uint8_t *, 0),                \
      (VALUE, uint64_t, 0), (DEVICE, unsigned long long *, 0))                                 \
    X(3, (VOID, void), lab9_histogram256, (DEVICE, const uint8_t *, 0), (VALUE, uint64_t, 0),  \
      (DEVICE, unsigned long long *, 0))
