/* The grader of lab 4: the sequential histogram on the CPU, the atomic kernel on the GPU. */
#include "lab4.h"

#include "grading.h"
#include "histogram_grading.h"
#include "references.h"
#include "technique.h"

#include <criterion/criterion.h>

_Static_assert(_Generic(&lab4_histogram_atomic, histogram_function *: 1, default: 0),
               "lab4_histogram_atomic must keep the histogram_function shape of the contract");

/* Part A runs on the CPU: these tests need no GPU. */
HOST_HISTOGRAM_TESTS(sequential, lab4_histogram_sequential)

HISTOGRAM_TESTS(atomic, lab4_histogram_atomic)

GRADED_TEST(atomic, past_4gib, .init = require_gpu, .timeout = CORRECTNESS_TIMEOUT_S)
{
    check_histogram_past_4gib("lab4_histogram_atomic", lab4_histogram_atomic);
}

GRADED_TEST(speed, atomic_against_the_cpu, .init = require_gpu_and_timing, .timeout = SPEED_TIMEOUT_S)
{
    /* Lab 3 counts rather than histograms, so lab 4's baseline is the sequential histogram on
     * this machine's CPU, timed in the same run. */
    const struct contender contenders[] = {
        {.label = "yours (global atomics)", .student = true, .calls = 16, .function = lab4_histogram_atomic},
        {.label = "sequential CPU (reference)", .on_host = reference_lab4_histogram_sequential},
        {.label = "lab 4 reference", .calls = 16, .fills_runs = true, .function = reference_lab4_histogram_atomic},
    };
    const struct speed_table tables[] = {
        {"Lab 4: your atomic kernel against the sequential CPU histogram (lab 3 counts rather "
         "than histograms, so the baseline is the CPU)",
         0, 1, 2},
    };
    report_histogram_speed(TIMED_CALL_BYTES, contenders, 3, tables, 1);
}

/* The technique check's run: the GPU histogram once. */
static void run_every_function(const struct technique_inputs *inputs)
{
    lab4_histogram_atomic(inputs->d_text, inputs->length, inputs->d_bins);
}

/* Lab 4's GPU histogram is the one built on global atomics. */
GRADED_TEST(technique, global_atomics_are_used, .timeout = CORRECTNESS_TIMEOUT_S)
{
    const struct sass_rule rules[] = {
        {SASS_GLOBAL_ATOMIC_ADD, true,
         "lab 4's kernel counts with atomicAdd on the global histogram, and your kernels have no "
         "atomic add on global memory (is the work done on the host?)"},
    };
    check_technique(rules, 1, run_every_function);
}
