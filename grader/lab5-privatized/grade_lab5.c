/* The grader of lab 5: private copies in global memory, private bins in shared memory, and the
 * private bins merged by a tree reduction instead of atomics. */
#include "lab5.h"

#include "grading.h"
#include "histogram_grading.h"
#include "references.h"
#include "technique.h"

#include <criterion/criterion.h>

_Static_assert(_Generic(&lab5_histogram_private_global, histogram_function *: 1, default: 0) &&
                   _Generic(&lab5_histogram_private_shared, histogram_function *: 1, default: 0) &&
                   _Generic(&lab5_histogram_reduced, histogram_function *: 1, default: 0),
               "lab 5's functions must keep the histogram_function shape of the contract");

HISTOGRAM_TESTS(private_global, lab5_histogram_private_global)

HISTOGRAM_TESTS(private_shared, lab5_histogram_private_shared)

HISTOGRAM_TESTS(reduced, lab5_histogram_reduced)

GRADED_TEST(private_global, past_4gib, .init = require_gpu, .timeout = CORRECTNESS_TIMEOUT_S)
{
    check_histogram_past_4gib("lab5_histogram_private_global", lab5_histogram_private_global);
}

GRADED_TEST(private_shared, past_4gib, .init = require_gpu, .timeout = CORRECTNESS_TIMEOUT_S)
{
    check_histogram_past_4gib("lab5_histogram_private_shared", lab5_histogram_private_shared);
}

GRADED_TEST(reduced, past_4gib, .init = require_gpu, .timeout = CORRECTNESS_TIMEOUT_S)
{
    check_histogram_past_4gib("lab5_histogram_reduced", lab5_histogram_reduced);
}

GRADED_TEST(speed, privatized_against_lab4, .init = require_gpu_and_timing, .timeout = SPEED_TIMEOUT_S)
{
    const struct contender contenders[] = {
        {.label = "yours (private global)", .student = true, .calls = 4,
         .function = lab5_histogram_private_global},
        {.label = "yours (private shared)", .student = true, .calls = 4,
         .function = lab5_histogram_private_shared},
        {.label = "lab 4 reference", .calls = 4, .one_call_when_slow = true,
         .function = reference_lab4_histogram_atomic},
        {.label = "lab 5 reference (global)", .calls = 4,
         .function = reference_lab5_histogram_private_global},
        {.label = "lab 5 reference (shared)", .calls = 4,
         .function = reference_lab5_histogram_private_shared},
        {.label = "yours (reduced)", .student = true, .calls = 4,
         .function = lab5_histogram_reduced},
        {.label = "lab 5 reference (reduced)", .calls = 4,
         .function = reference_lab5_histogram_reduced},
    };
    const struct speed_table tables[] = {
        {"Lab 5, part A: private copies in global memory, against lab 4's global atomics", 0, 2, 3},
        {"Lab 5, part B: private bins in shared memory, against lab 4's global atomics", 1, 2, 4},
        {"Lab 5, part C: the private bins merged by tree reductions, against part B's merge by "
         "global atomics (the reference's)",
         5, 4, 6},
    };
    report_histogram_speed(TIMED_CALL_BYTES, contenders, 7, tables, 3);
}

/* The technique check's runs: each part alone, so that one part's technique never passes for
 * another's (a part A that calls part B's function, say). */
static void run_part_a(const struct technique_inputs *inputs)
{
    lab5_histogram_private_global(inputs->d_text, inputs->length, inputs->d_bins);
}

static void run_part_b(const struct technique_inputs *inputs)
{
    lab5_histogram_private_shared(inputs->d_text, inputs->length, inputs->d_bins);
}

/* Part C once: its kernels alone. */
static void run_the_reduction(const struct technique_inputs *inputs)
{
    lab5_histogram_reduced(inputs->d_text, inputs->length, inputs->d_bins);
}

/* Part A privatizes in global memory: a block's copy of the bins there, counted into and merged
 * with global atomics, and no shared memory (part B's step). */
GRADED_TEST(technique, private_bins_in_global_memory, .timeout = CORRECTNESS_TIMEOUT_S)
{
    const struct sass_rule rules[] = {
        {SASS_GLOBAL_ATOMIC_ADD, true,
         "part A counts into a block's copy of the bins in global memory and merges the copies "
         "with global atomics, and the kernels it launched have none"},
        {SASS_SHARED_ATOMIC_OF_ITS_OWN, false,
         "part A keeps a block's copy of the bins in global memory, and the kernels it launched "
         "have an atomic on shared memory, part B's step: each part must do its own"},
    };
    check_technique(rules, 2, run_part_a);
}

/* Part B privatizes in shared memory: a block's bins there, merged with global atomics. */
GRADED_TEST(technique, private_bins_in_shared_memory, .timeout = CORRECTNESS_TIMEOUT_S)
{
    const struct sass_rule rules[] = {
        {"ATOMS\\.", true,
         "part B keeps a block's private bins in shared memory, and the kernels it launched have "
         "no atomic on shared memory"},
        {SASS_GLOBAL_ATOMIC_ADD, true,
         "part B merges the private bins into the histogram with global atomics, and the kernels "
         "it launched have none"},
    };
    check_technique(rules, 2, run_part_b);
}

/* Part C merges the private bins by tree reductions: its kernels keep the shared-memory bins of
 * part B and leave the global atomics out, every sum written by the one thread that owns it. */
GRADED_TEST(technique, merge_by_reduction, .timeout = CORRECTNESS_TIMEOUT_S)
{
    const struct sass_rule rules[] = {
        {"ATOMS\\.", true,
         "part C counts into private bins in shared memory, as part B does, and its kernels have "
         "no atomic on shared memory"},
        {SASS_ATOMIC_BEYOND_THE_BLOCK, false,
         "part C sums the partial histograms with tree reductions and writes each sum once, and "
         "its kernels have an atomic or a reduction on global memory (cp.reduce.async.bulk "
         "counts)"},
    };
    check_technique(rules, 2, run_the_reduction);
}
