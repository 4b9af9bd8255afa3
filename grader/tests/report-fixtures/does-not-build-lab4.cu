// A report fixture: a lab 4 that does not build (a misspelled name), so that make test can read
// every report of a grading whose build failed.
#include "lab4.h"

void lab4_histogram_sequential(const char *text, uint64_t length,
                               unsigned long long histogram[HISTOGRAM_BINS])
{
    for (uint64_t i = 0; i < length; i++)
        histogram[text[i] % HISTOGRAM_BINS] += 1 /* a missing semicolon: */
}

void lab4_histogram_atomic(const char *d_text, uint64_t length, unsigned long long *d_histogram)
{
    (void)d_text, (void)length, (void)d_histogram;
}
