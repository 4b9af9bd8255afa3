/* Lab 9's CPU references, and how a program of the kit reads an image a user names: the
 * histograms the grader and the demo compare the GPU's with. */
#ifndef COMMON_IMAGE_REFERENCE_H
#define COMMON_IMAGE_REFERENCE_H

#include "images.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The shapes of lab9.h's functions (common/ does not include a lab's header; the grader checks
 * that they agree). */
typedef void small_image_histogram(const uint32_t *d_image, uint64_t pixels,
                                   unsigned long long *d_histogram,
                                   unsigned int threads_per_block);
typedef void host_small_image_histogram(const uint32_t *image, uint64_t pixels,
                                        unsigned long long *histogram);
typedef void byte_image_histogram(const uint8_t *d_pixels, uint64_t pixels,
                                  unsigned long long *d_histogram);

/* The count of each value below bins among pixels[0, count); other values count in no bin. */
void cpu_small_histogram(const uint32_t *pixels, uint64_t count, unsigned int bins,
                         unsigned long long *histogram);

/* The count of each of the 256 byte values among pixels[0, count). */
void cpu_byte_histogram(const uint8_t *pixels, uint64_t count, unsigned long long histogram[256]);

/* The same for block[0, block_pixels) repeated to count pixels, the last copy cut (the image
 * repeat_on_device makes, common/repeated_text.h), from the block's. */
void cpu_byte_histogram_of_repeated(const uint8_t *block, uint64_t block_pixels, uint64_t count,
                                    unsigned long long histogram[256]);

/* Fills d_pixels[0, count) on the GPU with an image of `kind` (common/images.h): a block of at
 * most block_max pixels made on the host (the photograph whole, for IMAGE_PHOTO) and repeated
 * there (repeat_on_device), and its histogram. Returns 0, or -1 when the host has no memory for
 * the block. */
int repeat_image_on_device(enum image_kind kind, uint64_t seed, const uint8_t *photo,
                           uint64_t photo_pixels, uint64_t block_max, uint8_t *d_pixels,
                           uint64_t count, unsigned long long histogram[256]);

/* Part A's pixels made from 8-bit ones: value >> 4, so a photograph's 256 levels fall in 16
 * bins. */
void widen_to_small_pixels(const uint8_t *bytes, uint64_t count, uint32_t *pixels);

/* Reads an image file into a malloc'ed buffer: the pixels of a binary PGM (P5), or the bytes of
 * any other file, each a pixel. Returns 0, or -1 with a sentence in error. */
int load_image_input(const char *path, uint8_t **pixels, uint64_t *count, char *error,
                     size_t error_size);

#ifdef __cplusplus
}
#endif

#endif
