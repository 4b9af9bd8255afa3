/* The histogram every lab from 4 on computes: the lowercase letters of a text, in seven bins of
 * four letters each (a-d, e-h, i-l, m-p, q-t, u-x, y-z), as in PMPP chapter 9. Every other byte
 * is ignored: capitals, digits, spaces, and bytes of 0x80 and above, which are negative in a
 * (signed) char. */
#ifndef COMMON_HISTOGRAM_H
#define COMMON_HISTOGRAM_H

#include <stdint.h>

#define HISTOGRAM_BINS 7
#define LETTERS_PER_BIN 4

#ifdef __cplusplus
extern "C" {
#endif

/* The shape of every histogram function the labs implement. d_text and d_histogram are device
 * memory. Counts are 64-bit so that any text length gives an exact result. On entry
 * d_histogram holds garbage: the function must leave exactly the counts in it. */
typedef void histogram_function(const char *d_text, uint64_t length,
                                unsigned long long *d_histogram);

#ifdef __cplusplus
}
#endif

#endif
