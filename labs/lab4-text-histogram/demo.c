/* Runs your lab 4 code once. Run: build/student/lab4-text-histogram/demo [FILE] */
#include "lab4.h"

#include "histogram_demo.h"

#include <stdio.h>

int main(int argc, char **argv)
{
    /* Part A on a short sentence first: small enough to check by hand. */
    static const char sentence[] = "programming massively parallel processors";
    unsigned long long histogram[HISTOGRAM_BINS];
    lab4_histogram_sequential(sentence, sizeof sentence - 1, histogram);
    printf("\"%s\" (figure 9.1):\n ", sentence);
    for (int bin = 0; bin < HISTOGRAM_BINS; bin++)
        printf(" %llu", histogram[bin]);
    printf("   (expected: 5 5 6 10 10 1 1)\n\n");

    const struct demo_entry entries[] = {{"lab4_histogram_atomic", lab4_histogram_atomic}};
    return run_histogram_demo(argc, argv, entries, 1);
}
