/* The grader of lab 5: private copies in global memory, private bins in shared memory. */
#include "lab5.h"

#include "grading.h"
#include "histogram_grading.h"
#include "references.h"
#include "technique.h"

#include <criterion/criterion.h>

_Static_assert(_Generic(&lab5_histogram_private_global, histogram_function *: 1, default: 0) &&
                   _Generic(&lab5_histogram_private_shared, histogram_function *: 1, default: 0),
               "lab 5's functions must keep the histogram_function shape of the contract");

HISTOGRAM_TESTS(private_global, lab5_histogram_private_global)

HISTOGRAM_TESTS(private_shared, lab5_histogram_private_shared)

GRADED_TEST(private_global, past_4gib, .init = require_gpu, .timeout = CORRECTNESS_TIMEOUT_S)
{
    check_histogram_past_4gib("lab5_histogram_private_global", lab5_histogram_private_global);
}

GRADED_TEST(private_shared, past_4gib, .init = require_gpu, .timeout = CORRECTNESS_TIMEOUT_S)
{
    check_histogram_past_4gib("lab5_histogram_private_shared", lab5_histogram_private_shared);
}

GRADED_TEST(speed, privatized_against_lab4, .init = require_gpu_and_timing, .timeout = SPEED_TIMEOUT_S)
{
    const struct contender contenders[] = {
        {.label = "yours (private global)", .function = lab5_histogram_private_global},
        {.label = "yours (private shared)", .function = lab5_histogram_private_shared},
        {.label = "lab 4 reference", .function = reference_lab4_histogram_atomic},
        {.label = "lab 5 reference (global)", .function = reference_lab5_histogram_private_global},
        {.label = "lab 5 reference (shared)", .function = reference_lab5_histogram_private_shared},
    };
    const struct speed_table tables[] = {
        {"Lab 5, part A: private copies in global memory, against lab 4's global atomics", 0, 2, 3},
        {"Lab 5, part B: private bins in shared memory, against lab 4's global atomics", 1, 2, 4},
    };
    report_histogram_speed(contenders, 5, tables, 2);
}

/* The technique check's run: both parts once. */
static void run_every_function(const struct technique_inputs *inputs)
{
    lab5_histogram_private_global(inputs->d_text, inputs->length, inputs->d_bins);
    lab5_histogram_private_shared(inputs->d_text, inputs->length, inputs->d_bins);
}

/* Lab 5 privatizes: copies of the bins in shared memory, merged with global atomics. */
GRADED_TEST(technique, private_bins_in_shared_memory, .timeout = CORRECTNESS_TIMEOUT_S)
{
    const struct sass_rule rules[] = {
        {"ATOMS\\.", true,
         "part B keeps a block's private bins in shared memory, and your kernels have no atomic "
         "on shared memory"},
        {"(RED|ATOM)G?\\.[A-Z0-9.]*ADD", true,
         "the private copies are merged into the histogram with global atomics, and your kernels "
         "have none"},
    };
    check_technique(rules, 2, run_every_function);
}
