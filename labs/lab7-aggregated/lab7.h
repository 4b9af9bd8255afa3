/* Lab 7, aggregation: the contract shared by your code (lab7.cu), the reference solution and
 * the grader. Do not change it. All three functions are histogram_functions
 * (common/histogram.h). */
#ifndef LAB7_H
#define LAB7_H

#include "histogram.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How many consecutive bytes each thread counts in the two global-memory kernels of Part B. */
#define LAB7_GLOBAL_CHARS_PER_THREAD 256

/* Part A (figure 9.15): lab 6's interleaved kernel with private bins in shared memory, where
 * each thread adds a run of letters of one bin with a single atomicAdd. */
void lab7_histogram_aggregated(const char *d_text, uint64_t length,
                               unsigned long long *d_histogram);

/* Part B, given: no private bins; each thread counts LAB7_GLOBAL_CHARS_PER_THREAD consecutive
 * bytes with one global atomicAdd per letter. The baseline for ... */
void lab7_histogram_global_contiguous(const char *d_text, uint64_t length,
                                      unsigned long long *d_histogram);

/* ... this one: the same kernel with aggregated runs, one global atomicAdd per run. */
void lab7_histogram_global_aggregated(const char *d_text, uint64_t length,
                                      unsigned long long *d_histogram);

#ifdef __cplusplus
}
#endif

#endif
