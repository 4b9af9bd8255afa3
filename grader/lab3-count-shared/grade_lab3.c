/* The grader of lab 3: an exact count through a shared-memory counter per block. */
#include "lab3.h"

#include "count_grading.h"
#include "grading.h"
#include "references.h"
#include "technique.h"

#include <criterion/criterion.h>

/* The harness runs every lab's launcher through one function type. */
_Static_assert(_Generic(&lab3_launch_shared_count, count_launcher *: 1, default: 0),
               "lab3_launch_shared_count must keep the count_launcher shape of the contract");

GRADED_TEST(shared_count, exact_for_every_launch_shape, .init = require_gpu,
     .timeout = CORRECTNESS_TIMEOUT_S)
{
    check_exact_counts("lab3_launch_shared_count", lab3_launch_shared_count);
}

GRADED_TEST(shared_count, small_launches, .init = require_gpu, .timeout = CORRECTNESS_TIMEOUT_S)
{
    check_small_counts("lab3_launch_shared_count", lab3_launch_shared_count);
}

GRADED_TEST(speed, shared_count, .init = require_gpu_and_timing, .timeout = SPEED_TIMEOUT_S)
{
    const struct count_contender contenders[] = {
        {"yours (shared counter)", lab3_launch_shared_count, COUNT_EXACT},
        {"lab 2 reference (global atomic)", reference_lab2_launch_atomic_count, COUNT_EXACT},
        {"lab 3 reference", reference_lab3_launch_shared_count, COUNT_EXACT},
    };
    report_count_speed(contenders, 3, 1);
}

/* The technique check's run: the shared count once. */
static void run_every_function(const struct technique_inputs *inputs)
{
    lab3_launch_shared_count(inputs->d_bins, 4, 256);
}

/* Lab 3 is about counting in shared memory first. */
GRADED_TEST(technique, shared_memory_atomics_are_used, .timeout = CORRECTNESS_TIMEOUT_S)
{
    const struct sass_rule rules[] = {
        {"ATOMS\\.", true,
         "lab 3 counts each block in a shared-memory counter first, and your kernels have no "
         "atomic on shared memory"},
    };
    check_technique(rules, 1, run_every_function);
}
