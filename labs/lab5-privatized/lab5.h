/* Lab 5, privatization: the contract shared by your code (lab5.cu), the reference solution and
 * the grader. Do not change it. Its functions are histogram_functions (common/histogram.h). */
#ifndef LAB5_H
#define LAB5_H

#include "histogram.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Part A (figure 9.9): each block counts into its own private copy of the bins in global
 * memory, then adds its copy into d_histogram. */
void lab5_histogram_private_global(const char *d_text, uint64_t length,
                                   unsigned long long *d_histogram);

/* Part B (figure 9.10): each block counts into private bins in shared memory, then adds them
 * into d_histogram. */
void lab5_histogram_private_shared(const char *d_text, uint64_t length,
                                   unsigned long long *d_histogram);

/* Part C, the merge as a reduction: each block counts into private bins in shared memory, as in
 * part B, and stores them, with no atomic, as its partial histogram; the partial histograms are
 * then summed bin by bin with tree reductions, and each bin of d_histogram is written once. */
void lab5_histogram_reduced(const char *d_text, uint64_t length, unsigned long long *d_histogram);

#ifdef __cplusplus
}
#endif

#endif
