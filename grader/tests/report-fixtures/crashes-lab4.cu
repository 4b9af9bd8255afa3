// A report fixture: a lab 4 whose sequential histogram crashes (a write through a NULL pointer
// on the host), so that make test can read every report of a crashing grading.
#include "lab4.h"

void lab4_histogram_sequential(const char *text, uint64_t length,
                               unsigned long long histogram[HISTOGRAM_BINS])
{
    (void)text, (void)length, (void)histogram;
    *(volatile unsigned long long *)0 = length;
}

void lab4_histogram_atomic(const char *d_text, uint64_t length, unsigned long long *d_histogram)
{
    (void)d_text, (void)length, (void)d_histogram;
}
