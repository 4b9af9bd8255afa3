/* CPU references: the answers the GPU code is checked against. Deliberately plain. */
#ifndef COMMON_REFERENCE_H
#define COMMON_REFERENCE_H

#include "histogram.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The bin of one byte (0 for a-d ... 6 for y-z), or -1 when it is not a lowercase letter.
 * The byte is taken as unsigned so that 0x80-0xFF can never look like a letter. */
int histogram_bin_of(char byte);

/* The sequential histogram of figure 9.2, with exact 64-bit counts: histogram is overwritten. */
void cpu_histogram(const char *text, uint64_t length, unsigned long long histogram[HISTOGRAM_BINS]);

/* The bin names used in every table: "a-d", "e-h", ..., "y-z". */
const char *histogram_bin_name(int bin);

#ifdef __cplusplus
}
#endif

#endif
