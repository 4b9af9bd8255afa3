/* Lab 6's functions as they cross to the worker that runs them (grader/crossing/crossing.h). */
#include "lab6.h"

#define LAB_CROSSINGS(X)                                                                       \
    X(4, (VOID, void), lab6_histogram_contiguous, (DEVICE, const char *, 0),                   \
      (VALUE, uint64_t, 0), (DEVICE, unsigned long long *, 0), (VALUE, unsigned int, 0))       \
    X(4, (VOID, void), lab6_histogram_interleaved, (DEVICE, const char *, 0),                  \
      (VALUE, uint64_t, 0), (DEVICE, unsigned long long *, 0), (VALUE, unsigned int, 0))       \
    X(4, (VOID, void), lab6_histogram_sections, (DEVICE, const char *, 0),                     \
      (VALUE, uint64_t, 0), (DEVICE, unsigned long long *, 0), (VALUE, unsigned int, 0))       \
    X(0, (VALUE, unsigned int), lab6_chosen_chars_per_thread)                                  \
    X(1, (VALUE, unsigned int), lab6_chosen_blocks, (VALUE, int, 0))
