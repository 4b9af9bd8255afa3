/* The library baseline: the seven-bin letter histogram computed with CUB's
 * cub::DeviceHistogram::HistogramEven (CUDA's CCCL), which is what a practitioner would call.
 * CUB counts 26 bins, one per letter; a small kernel folds them into the seven. */
#ifndef COMMON_CUB_HISTOGRAM_H
#define COMMON_CUB_HISTOGRAM_H

#include "histogram.h"

#ifdef __cplusplus
extern "C" {
#endif

/* CUB needs scratch memory; allocating it inside a timed call would time cudaMalloc, so it is
 * made once, for texts up to max_length bytes. */
struct cub_histogram;

struct cub_histogram *cub_histogram_create(uint64_t max_length);
void cub_histogram_destroy(struct cub_histogram *cub);

/* Like a histogram_function; length must not exceed the max_length given at creation. */
void cub_histogram_run(struct cub_histogram *cub, const char *d_text, uint64_t length,
                       unsigned long long *d_histogram);

#ifdef __cplusplus
}
#endif

#endif
