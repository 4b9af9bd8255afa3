/* The library baseline: the histograms of the labs computed with CUB's
 * cub::DeviceHistogram::HistogramEven (CUDA's CCCL), which is what a practitioner would call.
 * For the seven-bin letter histogram CUB counts 26 bins, one per letter, and a small kernel
 * folds them into the seven; for lab 9's 256 bins of 8-bit pixels, it counts them directly and
 * a small kernel widens its 32-bit counts into the 64-bit bins. */
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

/* The same for lab 9's 256 bins of 8-bit pixels (a byte_image_histogram of common/image_reference.h), for
 * images up to max_pixels. */
struct cub_byte_histogram;

struct cub_byte_histogram *cub_byte_histogram_create(uint64_t max_pixels);
void cub_byte_histogram_destroy(struct cub_byte_histogram *cub);
void cub_byte_histogram_run(struct cub_byte_histogram *cub, const uint8_t *d_pixels,
                            uint64_t pixels, unsigned long long *d_histogram);

#ifdef __cplusplus
}
#endif

#endif
