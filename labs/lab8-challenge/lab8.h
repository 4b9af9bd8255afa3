/* Lab 8, the challenge: a histogram as fast as the memory allows. The contract shared by your
 * code (lab8.cu), the reference solution and the grader. Do not change it. */
#ifndef LAB8_H
#define LAB8_H

#include "histogram.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A histogram_function (common/histogram.h): the seven bins of the lowercase letters of
 * d_text[0, length), for any length and any alignment of d_text. */
void lab8_histogram(const char *d_text, uint64_t length, unsigned long long *d_histogram);

#ifdef __cplusplus
}
#endif

#endif
