/* Lab 5, privatization: the contract shared by your code (lab5.cu), the reference solution and
 * the grader. Do not change it. Both functions are histogram_functions (common/histogram.h). */
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

#ifdef __cplusplus
}
#endif

#endif
