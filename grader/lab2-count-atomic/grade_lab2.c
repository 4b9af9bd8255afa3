/* The grader of lab 2: an exact count with atomicAdd, and a float add built from atomicCAS. */
#include "lab2.h"

#include "count_grading.h"
#include "cuda_check.h"
#include "grading.h"
#include "inputs.h"
#include "references.h"
#include "technique.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

/* The harness runs every lab's launcher through one function type. */
_Static_assert(_Generic(&lab2_launch_atomic_count, count_launcher *: 1, default: 0),
               "lab2_launch_atomic_count must keep the count_launcher shape of the contract");

TestSuite(atomic_count, .init = require_gpu, .timeout = CORRECTNESS_TIMEOUT_S);

GRADED_TEST(atomic_count, exact_for_every_launch_shape)
{
    check_exact_counts("lab2_launch_atomic_count", lab2_launch_atomic_count);
}

GRADED_TEST(atomic_count, small_launches)
{
    check_small_counts("lab2_launch_atomic_count", lab2_launch_atomic_count);
}

/* Sums values that are whole quarters between 0 and 7.75: every partial sum below 2^22 is
 * exact in float, so the right answer does not depend on the order of the additions, and
 * anything else is a lost or doubled update. */
#define GUARD_VALUES 1024
#define GUARD_VALUE 65536.0f

static void check_cas_sum(unsigned int count)
{
    struct grading_options options = grading_options();
    float *values = malloc((count ? count : 1) * sizeof *values);
    cr_assert(values, "out of host memory");
    uint64_t state = options.seed;
    double exact = 0.0;
    for (unsigned int i = 0; i < count; i++) {
        values[i] = 0.25f * (float)(splitmix64(&state) % 32);
        exact += values[i];
    }
    /* After the values, a guard of large ones: a kernel that reads past the end adds them. */
    float *d_values = NULL, *d_sum = NULL, sum = -1.0f, guard[GUARD_VALUES];
    for (int g = 0; g < GUARD_VALUES; g++)
        guard[g] = GUARD_VALUE;
    CUDA_CHECK(cudaMalloc((void **)&d_values, count * sizeof *values + sizeof guard));
    CUDA_CHECK(cudaMalloc((void **)&d_sum, sizeof sum));
    CUDA_CHECK(cudaMemcpy(d_values, values, count * sizeof *values, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_values + count, guard, sizeof guard, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_sum, 0, sizeof sum));
    lab2_launch_cas_float_sum(d_sum, d_values, count);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(&sum, d_sum, sizeof sum, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_values));
    CUDA_CHECK(cudaFree(d_sum));
    free(values);

    const char *hint = sum == 0.0f && exact > 0
                           ? "nothing was added: does the kernel call cas_atomic_add, and does "
                             "cas_atomic_add swap in the new sum?"
                       : sum >= exact + GUARD_VALUE
                           ? "values past the end of the array were added: a thread with i >= count "
                             "must not read values[i]"
                       : sum < exact ? "additions were lost: when atomicCAS returns something other "
                                       "than what you expected, retry with the value it returned"
                                     : "values were added more than once: leave the loop as soon "
                                       "as atomicCAS succeeds, and let one thread add one value";
    cr_assert(sum == (float)exact,
              "CAS float sum of %u values (seed %llu): expected exactly %.2f, got %.2f\n  %s", count,
              (unsigned long long)options.seed, exact, (double)sum, hint);
}

TestSuite(cas_float_sum, .init = require_gpu, .timeout = CORRECTNESS_TIMEOUT_S);

GRADED_TEST(cas_float_sum, no_values) { check_cas_sum(0); }
GRADED_TEST(cas_float_sum, one_value) { check_cas_sum(1); }
GRADED_TEST(cas_float_sum, values_1000) { check_cas_sum(1000); }
GRADED_TEST(cas_float_sum, values_65537) { check_cas_sum(65537); }

GRADED_TEST(speed, atomic_count, .init = require_gpu_and_timing, .timeout = SPEED_TIMEOUT_S)
{
    const struct count_contender contenders[] = {
        {"yours (atomicAdd)", lab2_launch_atomic_count, COUNT_EXACT},
        {"lab 1 reference (no atomic)", reference_lab1_launch_racy_count, COUNT_RACY},
        {"lab 2 reference", reference_lab2_launch_atomic_count, COUNT_EXACT},
    };
    report_count_speed(contenders, 3, 1);
}

/* The technique check's run: the atomic count and the CAS sum once each. */
static void run_every_function(const struct technique_inputs *inputs)
{
    lab2_launch_atomic_count(inputs->d_bins, 4, 256);
    /* The text's bytes as floats: a sum the kernel's work changes. */
    lab2_launch_cas_float_sum((float *)(inputs->d_bins + 1), (const float *)inputs->d_text, 64);
}

/* Lab 2 is about atomics: atomicAdd on global memory, and a float addition built on atomicCAS. */
GRADED_TEST(technique, atomics_are_used, .timeout = CORRECTNESS_TIMEOUT_S)
{
    const struct sass_rule rules[] = {
        {SASS_GLOBAL_ATOMIC_ADD, true,
         "lab 2 counts with an atomic add on global memory (atomicAdd), and your kernels have "
         "none"},
        {"ATOMG?\\.[A-Z0-9.]*CAS", true,
         "part B builds the float addition on atomicCAS, and your kernels have no compare-and-swap"},
    };
    check_technique(rules, 2, run_every_function);
}
