/* The timing statistics (host code: no CUDA). */
#include "timing.h"

#include <criterion/criterion.h>

Test(median, odd_and_even_counts)
{
    double odd[] = {5, 1, 3};
    cr_expect_float_eq(median_of(odd, 3), 3.0, 1e-12);
    double even[] = {4, 1, 3, 2};
    cr_expect_float_eq(median_of(even, 4), 2.5, 1e-12);
    double one[] = {7};
    cr_expect_float_eq(median_of(one, 1), 7.0, 1e-12);
    cr_expect_float_eq(median_of(NULL, 0), 0.0, 1e-12);
    /* An outlier, the first run's start-up cost say, does not move the median. */
    double with_outlier[] = {1.0, 1.1, 0.9, 250.0, 1.0};
    cr_expect_float_eq(median_of(with_outlier, 5), 1.0, 1e-12);
}

Test(fastest, smallest_sample_wherever_it_is)
{
    /* A CPU baseline's runs on a shared host: slow spells only add time. */
    double spells[] = {1060.7, 1094.3, 940.8, 1002.5};
    cr_expect_float_eq(fastest_of(spells, 4), 940.8, 1e-12);
    double first[] = {2.0, 3.0};
    cr_expect_float_eq(fastest_of(first, 2), 2.0, 1e-12);
    double last[] = {3.0, 2.0};
    cr_expect_float_eq(fastest_of(last, 2), 2.0, 1e-12);
    cr_expect_float_eq(fastest_of(NULL, 0), 0.0, 1e-12);
}
