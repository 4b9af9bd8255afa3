/* Lab 4, the text histogram: the contract shared by your code (lab4.cu), the reference
 * solution and the grader. Do not change it. The histogram itself is described in
 * common/histogram.h: seven bins of lowercase letters, everything else ignored. */
#ifndef LAB4_H
#define LAB4_H

#include "histogram.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Part A, on the CPU (figure 9.2): count text[0 .. length) into histogram (host memory),
 * overwriting what it held. */
void lab4_histogram_sequential(const char *text, uint64_t length,
                               unsigned long long histogram[HISTOGRAM_BINS]);

/* Part B, on the GPU (figure 9.6): one thread per byte, one global atomicAdd per letter.
 * A histogram_function: d_text and d_histogram are device memory, d_histogram holds garbage
 * on entry. length may be 0, and may be 2^32 - 1 or more. */
void lab4_histogram_atomic(const char *d_text, uint64_t length, unsigned long long *d_histogram);

#ifdef __cplusplus
}
#endif

#endif
