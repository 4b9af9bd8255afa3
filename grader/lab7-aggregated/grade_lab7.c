/* The grader of lab 7: aggregation in shared memory (figure 9.15) and straight to global
 * memory, each timed against its baseline on every distribution. */
#include "lab7.h"

#include "device.h"
#include "grading.h"
#include "histogram_grading.h"
#include "references.h"
#include "technique.h"

#include <criterion/criterion.h>

_Static_assert(_Generic(&lab7_histogram_aggregated, histogram_function *: 1, default: 0) &&
                   _Generic(&lab7_histogram_global_aggregated, histogram_function *: 1, default: 0),
               "lab 7's functions must keep the histogram_function shape of the contract");

static void lab6_reference_interleaved_as_lab7(const char *d_text, uint64_t length,
                                              unsigned long long *d_histogram)
{
    reference_lab6_histogram_interleaved(d_text, length, d_histogram,
                                         8u * (unsigned int)gpu_multiprocessors());
}

HISTOGRAM_TESTS(aggregated, lab7_histogram_aggregated)

HISTOGRAM_TESTS(global_aggregated, lab7_histogram_global_aggregated)

GRADED_TEST(aggregated, past_4gib, .init = require_gpu, .timeout = CORRECTNESS_TIMEOUT_S)
{
    check_histogram_past_4gib("lab7_histogram_aggregated", lab7_histogram_aggregated);
}

GRADED_TEST(global_aggregated, past_4gib, .init = require_gpu, .timeout = CORRECTNESS_TIMEOUT_S)
{
    check_histogram_past_4gib("lab7_histogram_global_aggregated", lab7_histogram_global_aggregated);
}

GRADED_TEST(speed, aggregated_against_their_baselines, .init = require_gpu_and_timing,
     .timeout = SPEED_TIMEOUT_S)
{
    const struct contender contenders[] = {
        {.label = "yours (shared, aggregated)", .student = true, .calls = 16,
         .function = lab7_histogram_aggregated},
        /* Its chosen parameter asked for now: a timed run holds its calls alone (crossing.h). */
        {.label = "lab 6 reference (contiguous)",
         .with_parameter = reference_lab6_histogram_contiguous,
         .parameter = reference_lab6_chosen_chars_per_thread()},
        {.label = "lab 7 reference (shared)", .calls = 16,
         .function = reference_lab7_histogram_aggregated},
        {.label = "global, not aggregated (given)", .calls = 1,
         .function = reference_lab7_histogram_global_contiguous},
        {.label = "yours (global, aggregated)", .student = true, .calls = 1,
         .function = lab7_histogram_global_aggregated},
        {.label = "lab 7 reference (global)", .calls = 1,
         .function = reference_lab7_histogram_global_aggregated},
        {.label = "lab 6 reference (interleaved)", .function = lab6_reference_interleaved_as_lab7},
    };
    const struct speed_table tables[] = {
        {"Lab 7, part A: aggregation on shared-memory bins (figure 9.15), against lab 6's "
         "contiguous kernel",
         0, 1, 2},
        {"Lab 7, part A, aggregation alone: against lab 6's interleaved kernel (the same "
         "partitioning and grid, 8 blocks per multiprocessor, without aggregation)",
         0, 6, 2},
        {"Lab 7, part B: aggregation with atomics straight to global memory, against the same "
         "kernel without it",
         4, 3, 5},
    };
    report_histogram_speed(TIMED_CALL_BYTES, contenders, 7, tables, 3);
}

/* The technique check's runs: each part alone, so that one part's technique never passes for
 * another's (a part B that calls part A's function, or the given lab 6 kernel's, say). */
static void run_part_a(const struct technique_inputs *inputs)
{
    lab7_histogram_aggregated(inputs->d_text, inputs->length, inputs->d_bins);
}

static void run_part_b(const struct technique_inputs *inputs)
{
    lab7_histogram_global_aggregated(inputs->d_text, inputs->length, inputs->d_bins);
}

/* Lab 7 adds a run's length with one atomic: an add of a variable, not an increment by 1. */
GRADED_TEST(technique, runs_are_added_whole, .timeout = CORRECTNESS_TIMEOUT_S)
{
    const struct sass_rule rules[] = {
        {"ATOMS\\.ADD", true,
         "part A adds a whole run to a shared bin with one atomicAdd(&bin, run_length) on the "
         "32-bit bins the skeleton gives, and the kernels it launched have no such add (ATOMS.ADD): "
         "an add of 1 compiles to ATOMS.POPC.INC, and an add to a 64-bit shared bin to a "
         "compare-and-swap loop (ATOMS.CAST.SPIN.64) that the check cannot tell from an add of 1"},
    };
    check_technique(rules, 1, run_part_a);
}

/* Part B adds the runs straight to the global bins: no shared memory (part A's step). */
GRADED_TEST(technique, runs_are_added_to_the_global_bins, .timeout = CORRECTNESS_TIMEOUT_S)
{
    const struct sass_rule rules[] = {
        {SASS_GLOBAL_ATOMIC_ADD "\\.64", true,
         "part B adds runs straight to the 64-bit global bins, and the kernels it launched have "
         "no 64-bit global atomic add"},
        {SASS_SHARED_ATOMIC_OF_ITS_OWN, false,
         "part B adds runs straight to the global bins, and the kernels it launched have an "
         "atomic on shared memory, part A's step: each part must do its own"},
    };
    check_technique(rules, 2, run_part_b);
}
