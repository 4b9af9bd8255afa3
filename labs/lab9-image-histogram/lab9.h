/* Lab 9, the image histogram: the contract shared by your code (lab9.cu), the reference solution
 * and the grader. Do not change it.
 *
 * Part A is the image of the lecture slides: 32-bit pixels and sixteen bins. Part B is the
 * histogram most programs compute (OpenCV's calcHist, CUB's HistogramEven): 8-bit pixels and
 * 256 bins. Counts are 64-bit, so any image gives exact counts. Every d_ pointer is device
 * memory; on entry d_histogram holds garbage: a function must leave exactly the counts in it. */
#ifndef LAB9_H
#define LAB9_H

#include <stdint.h>

#define SMALL_HISTOGRAM_BINS 16
#define BYTE_HISTOGRAM_BINS 256

#ifdef __cplusplus
extern "C" {
#endif

/* Part A. A pixel of value v below SMALL_HISTOGRAM_BINS counts in bin v; a pixel of any other
 * value (a sensor's error code, a marker) counts in no bin. pixels is width x height, any size,
 * 0 included. Every kernel the GPU versions launch runs in blocks of threads_per_block threads
 * (1 to 1024: below 16 too), and they must be right for every such size. */
void lab9_histogram16_host(const uint32_t *image, uint64_t pixels,
                           unsigned long long histogram[SMALL_HISTOGRAM_BINS]);

/* Every pixel an atomic add on the histogram in global memory. */
void lab9_histogram16_global(const uint32_t *d_image, uint64_t pixels,
                             unsigned long long *d_histogram, unsigned int threads_per_block);

/* Each block counts into private bins in shared memory, then adds them into d_histogram. */
void lab9_histogram16_shared(const uint32_t *d_image, uint64_t pixels,
                             unsigned long long *d_histogram, unsigned int threads_per_block);

/* Part B. Every 8-bit value is its own bin: BYTE_HISTOGRAM_BINS bins. d_pixels may start at any
 * address (a crop of an image starts anywhere). */

/* One private copy of the 256 bins a block, in shared memory: lab 5's kernel for 256 bins. */
void lab9_histogram256_private(const uint8_t *d_pixels, uint64_t pixels,
                               unsigned long long *d_histogram);

/* As fast as the memory allows, on every image. */
void lab9_histogram256(const uint8_t *d_pixels, uint64_t pixels, unsigned long long *d_histogram);

#ifdef __cplusplus
}
#endif

#endif
