/* The long texts that speed is measured on, in the grader and in make bench. A timed text must
 * be larger than the GPU's L2 cache, and making hundreds of MiB on the host, counting them and
 * copying them over took most of a speed test's time. So a block is made on the host (a
 * generated text, the shipped text or a student's file), copied to the GPU once and doubled
 * there until it fills the length. Kernels cannot tell: the copies sit at other addresses, and
 * the grader changes bytes between timed runs so that no answer can be reused. */
#ifndef COMMON_REPEATED_TEXT_H
#define COMMON_REPEATED_TEXT_H

#include "histogram.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Fills d_text[0, length) with block[0, block_length) repeated; the last copy may be cut.
 * block_length must not be 0 unless length is. */
void repeat_on_device(char *d_text, uint64_t length, const char *block, uint64_t block_length);

/* The histogram of a block repeated to length units (bytes, pixels), the last copy cut, from
 * two histograms of `bins` bins: whole, of the block, and part, of its first
 * length % block_length units. */
void histogram_of_repetition(uint64_t block_length, uint64_t length, int bins,
                             const unsigned long long *whole, const unsigned long long *part,
                             unsigned long long *histogram);

/* The histogram of that repeated text, from the block's (cpu_histogram, common/reference.h). */
void histogram_of_repeated(const char *block, uint64_t block_length, uint64_t length,
                           unsigned long long histogram[HISTOGRAM_BINS]);

#ifdef __cplusplus
}
#endif

#endif
