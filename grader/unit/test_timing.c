/* The timing statistics (host code: no CUDA). */
#include "crossing.h"
#include "speed.h"
#include "timing.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

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

/* A slow baseline's calls a run (speed.h one_call_when_slow): its declared calls on a quick
 * input, where it bears the same share of a run's fixed cost as the functions it is compared
 * with; one call where a call is slow enough that the fixed cost is small beside it. Lab 5's
 * lab 4 column on no-letters: a 0.16 ms call made alone each run bore the whole fixed cost,
 * against a quarter of it for part A and B's calls (docs/results/h100/ncu-lab4-lab5-no-letters). */
Test(calls_a_run, a_slow_baseline_makes_one_call_where_its_call_is_slow)
{
    cr_expect_eq(speed_calls_on_input(4, true, 0.16), 4);
    cr_expect_eq(speed_calls_on_input(4, true, SPEED_SLOW_CALL_MS - 0.01), 4);
    cr_expect_eq(speed_calls_on_input(4, true, SPEED_SLOW_CALL_MS), 1);
    cr_expect_eq(speed_calls_on_input(4, true, 49.5), 1);
    /* Every other contender keeps its calls, however slow: the student's are fixed. */
    cr_expect_eq(speed_calls_on_input(4, false, 49.5), 4);
    cr_expect_eq(speed_calls_on_input(1, false, 0.16), 1);
}

/* A reference that fills its runs (speed.h fills_runs), and the student's function scored
 * against it: lab 4's atomics on an H200 took 0.43 ms a run of one call on text without
 * letters, about half of it the run's fixed cost, and 54 ms on English (ratio sweep at 494be3e:
 * that input alone read identical code 0.839 to 1.220). */
Test(calls_a_run, a_reference_that_fills_its_runs_makes_enough_calls_for_a_run)
{
    cr_expect_eq(speed_calls_to_fill_run(16, 0.43), 12); /* ceil(5 / 0.43) */
    cr_expect_eq(speed_calls_to_fill_run(16, 54.0), 1);
    cr_expect_eq(speed_calls_to_fill_run(16, SPEED_RUN_MS), 1);
    cr_expect_eq(speed_calls_to_fill_run(16, SPEED_RUN_MS / 2), 2);
    cr_expect_eq(speed_calls_to_fill_run(16, 0.01), 16); /* never past what it declared */
    cr_expect_eq(speed_calls_to_fill_run(4, 0.0), 4);    /* no warm-up time: its declared */
}

/* Each kind's phases share an input's scored runs out whole: every run to exactly one phase of
 * the student's and one of the trusted, none empty while there are as many runs as phases. */
Test(phases, every_run_falls_to_one_phase_of_each_kind)
{
    for (int student_phases = 1; student_phases <= SPEED_MOST_STUDENT_PHASES; student_phases++)
        for (int timed_runs = TIMING_MIN_RUNS; timed_runs <= 61; timed_runs++) {
            int taken[2][61] = {{0}};
            for (int phase = 0; phase < 2 * student_phases + 1; phase++) {
                int first = -1;
                int runs = speed_phase_runs(timed_runs, phase, student_phases, &first);
                cr_expect(runs >= 1, "%d runs, %d phases of the student's: phase %d has %d",
                          timed_runs, student_phases, phase, runs);
                for (int r = first; r < first + runs; r++) {
                    cr_assert(r >= 0 && r < timed_runs, "run %d of %d", r, timed_runs);
                    taken[phase % 2][r]++;
                }
            }
            for (int r = 0; r < timed_runs; r++)
                cr_expect(taken[0][r] == 1 && taken[1][r] == 1,
                          "%d runs, %d phases of the student's: run %d in %d trusted and %d "
                          "student's phases", timed_runs, student_phases, r, taken[0][r],
                          taken[1][r]);
        }
}

Test(phases, the_count_asked_for_the_kits_measurements)
{
    cr_expect_eq(speed_student_phases_asked(NULL), SPEED_STUDENT_PHASES);
    cr_expect_eq(speed_student_phases_asked(""), SPEED_STUDENT_PHASES);
    cr_expect_eq(speed_student_phases_asked("5"), 5);
    cr_expect_eq(speed_student_phases_asked("1"), 1);
    const char *refused[] = {"0", "-1", "9", "3x", " 3", "three"};
    for (size_t k = 0; k < sizeof refused / sizeof *refused; k++)
        cr_expect_eq(speed_student_phases_asked(refused[k]), 0, "'%s' taken", refused[k]);
}

Test(kernels_alone, a_call_is_the_median_of_the_runs_over_their_calls)
{
    double runs[] = {4.2, 4.0, 4.4, 4.1, 4.3};
    cr_expect_float_eq(speed_kernel_ms(runs, 5, 4), 1.05, 1e-12);
    double one_call[] = {0.5, 0.7, 0.6};
    cr_expect_float_eq(speed_kernel_ms(one_call, 3, 1), 0.6, 1e-12);
}

Test(kernels_alone, none_where_any_run_has_no_time_on_the_gpu)
{
    /* A run of the student's worker, a CPU contender's or one whose events failed reads -1:
     * the figure is then not shown, never made of the runs that had one. */
    double one_missing[] = {4.2, -1.0, 4.4};
    cr_expect_float_eq(speed_kernel_ms(one_missing, 3, 4), 0.0, 1e-12);
    double zero[] = {4.2, 0.0};
    cr_expect_float_eq(speed_kernel_ms(zero, 2, 4), 0.0, 1e-12);
    double not_a_number[] = {4.2, NAN};
    cr_expect_float_eq(speed_kernel_ms(not_a_number, 2, 4), 0.0, 1e-12);
    cr_expect_float_eq(speed_kernel_ms(NULL, 0, 4), 0.0, 1e-12);
}

Test(kernels_alone, a_time_is_taken_from_the_references_worker_alone)
{
    cr_expect_float_eq(crossing_trusted_gpu_ms(CROSSING_REFERENCE, true, 4, 1.25), 1.25, 1e-12);
    /* The student's process can change what it reports: never taken, whatever it says. */
    cr_expect_lt(crossing_trusted_gpu_ms(CROSSING_STUDENT, true, 4, 1.25), 0.0);
    /* No answer, a request of no call, or no time: none. */
    cr_expect_lt(crossing_trusted_gpu_ms(CROSSING_REFERENCE, false, 4, 1.25), 0.0);
    cr_expect_lt(crossing_trusted_gpu_ms(CROSSING_REFERENCE, true, 0, 1.25), 0.0);
    cr_expect_lt(crossing_trusted_gpu_ms(CROSSING_REFERENCE, true, 4, -1.0), 0.0);
    cr_expect_lt(crossing_trusted_gpu_ms(CROSSING_REFERENCE, true, 4, 0.0), 0.0);
}
