/* The CPU reference histogram. */
#include "reference.h"

#include <criterion/criterion.h>
#include <string.h>

Test(cpu_histogram, the_books_figure_9_1)
{
    static const char phrase[] = "programming massively parallel processors";
    unsigned long long histogram[HISTOGRAM_BINS];
    cpu_histogram(phrase, strlen(phrase), histogram);
    const unsigned long long expected[HISTOGRAM_BINS] = {5, 5, 6, 10, 10, 1, 1};
    cr_expect_arr_eq(histogram, expected, sizeof expected);
}

Test(cpu_histogram, every_byte_value_once)
{
    /* 0x80-0xFF are negative chars: none may land in a bin, nor may capitals or digits. */
    char all[256];
    for (int b = 0; b < 256; b++)
        all[b] = (char)b;
    unsigned long long histogram[HISTOGRAM_BINS];
    cpu_histogram(all, 256, histogram);
    const unsigned long long expected[HISTOGRAM_BINS] = {4, 4, 4, 4, 4, 4, 2};
    cr_expect_arr_eq(histogram, expected, sizeof expected);
}

Test(cpu_histogram, overwrites_what_the_histogram_held)
{
    unsigned long long histogram[HISTOGRAM_BINS] = {9, 9, 9, 9, 9, 9, 9};
    cpu_histogram("zz", 2, histogram);
    const unsigned long long expected[HISTOGRAM_BINS] = {0, 0, 0, 0, 0, 0, 2};
    cr_expect_arr_eq(histogram, expected, sizeof expected);
}

Test(cpu_histogram, bins_and_names)
{
    cr_expect_eq(histogram_bin_of('a'), 0);
    cr_expect_eq(histogram_bin_of('d'), 0);
    cr_expect_eq(histogram_bin_of('e'), 1);
    cr_expect_eq(histogram_bin_of('z'), 6);
    cr_expect_eq(histogram_bin_of('A'), -1);
    cr_expect_eq(histogram_bin_of('{'), -1);
    cr_expect_eq(histogram_bin_of('`'), -1);
    cr_expect_eq(histogram_bin_of((char)0xE1), -1);
    cr_expect_str_eq(histogram_bin_name(0), "a-d");
    cr_expect_str_eq(histogram_bin_name(6), "y-z");
    cr_expect_str_eq(histogram_bin_name(7), "?");
}
