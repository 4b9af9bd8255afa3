/* The grader of lab 1: the race simulator on the CPU, the racy count on the GPU. */
#include "lab1.h"

#include "count_grading.h"
#include "grading.h"
#include "references.h"
#include "technique.h"

#include <criterion/criterion.h>
#include <stdio.h>

/* The harness runs every lab's launcher through one function type. */
_Static_assert(_Generic(&lab1_launch_racy_count, count_launcher *: 1, default: 0),
               "lab1_launch_racy_count must keep the count_launcher shape of the contract");

/* ---- Part A: the simulator (CPU) ---------------------------------------------------- */

/* What the schedule must give, worked out without simulating: a thread's Old is the initial
 * value plus one if the other thread wrote before this one read; the last write wins. */
static struct race_outcome expected_outcome(unsigned long long initial, const int schedule[6])
{
    int read_time[2] = {-1, -1}, write_time[2] = {-1, -1}, steps[2] = {0, 0};
    for (int time = 0; time < RACE_STEPS; time++) {
        int thread = schedule[time] - 1;
        if (steps[thread] == 0)
            read_time[thread] = time;
        if (steps[thread] == 2)
            write_time[thread] = time;
        steps[thread]++;
    }
    struct race_outcome outcome;
    for (int t = 0; t < 2; t++)
        outcome.old[t] = initial + (write_time[1 - t] < read_time[t] ? 1 : 0);
    int last_writer = write_time[0] > write_time[1] ? 0 : 1;
    outcome.memory = outcome.old[last_writer] + 1;
    return outcome;
}

static void format_schedule(char *out, const int schedule[RACE_STEPS])
{
    for (int time = 0; time < RACE_STEPS; time++)
        out[time] = (char)('0' + schedule[time]);
    out[RACE_STEPS] = '\0';
}

GRADED_TEST(race_simulator, the_slides_four_scenarios, .timeout = CORRECTNESS_TIMEOUT_S)
{
    /* Timing scenarios 1-4 of the slides (figures 9.4 and 9.5 of the book), from Mem[x] = 0. */
    static const struct {
        int schedule[RACE_STEPS];
        unsigned long long memory, old_thread1, old_thread2;
    } scenarios[] = {
        {{1, 1, 1, 2, 2, 2}, 2, 0, 1},
        {{2, 2, 2, 1, 1, 1}, 2, 1, 0},
        {{1, 1, 2, 1, 2, 2}, 1, 0, 0},
        {{2, 2, 1, 2, 1, 1}, 1, 0, 0},
    };
    for (int s = 0; s < 4; s++) {
        struct race_outcome got = lab1_simulate_race(0, scenarios[s].schedule);
        char order[RACE_STEPS + 1];
        format_schedule(order, scenarios[s].schedule);
        cr_expect(got.memory == scenarios[s].memory && got.old[0] == scenarios[s].old_thread1 &&
                      got.old[1] == scenarios[s].old_thread2,
                  "timing scenario %d (threads moving in the order %s): expected Mem[x] = %llu, "
                  "thread 1 Old = %llu, thread 2 Old = %llu; got Mem[x] = %llu, Old = %llu and "
                  "%llu",
                  s + 1, order, scenarios[s].memory, scenarios[s].old_thread1,
                  scenarios[s].old_thread2, got.memory, got.old[0], got.old[1]);
    }
}

GRADED_TEST(race_simulator, all_20_interleavings, .timeout = CORRECTNESS_TIMEOUT_S)
{
    /* Every order of two threads' three steps: choose the 3 of 6 moments when thread 1 moves.
     * Started from 41, so that an answer that assumes Mem[x] = 0 shows. */
    int orders = 0, wrong = 0;
    for (int moments = 0; moments < 64; moments++) {
        if (__builtin_popcount((unsigned)moments) != 3)
            continue;
        int schedule[RACE_STEPS];
        for (int time = 0; time < RACE_STEPS; time++)
            schedule[time] = (moments >> time & 1) ? 1 : 2;
        orders++;
        struct race_outcome want = expected_outcome(41, schedule);
        struct race_outcome got = lab1_simulate_race(41, schedule);
        if (got.memory == want.memory && got.old[0] == want.old[0] && got.old[1] == want.old[1])
            continue;
        wrong++;
        char order[RACE_STEPS + 1];
        format_schedule(order, schedule);
        cr_expect_fail("order %s from Mem[x] = 41: expected Mem[x] = %llu, Old = %llu and %llu; "
                       "got Mem[x] = %llu, Old = %llu and %llu",
                       order, want.memory, want.old[0], want.old[1], got.memory, got.old[0],
                       got.old[1]);
    }
    cr_assert_eq(orders, 20, "the grader enumerated %d orders instead of 20", orders);
    if (wrong == 0)
        printf("lab1_simulate_race: right on all 20 interleavings\n");
}

/* ---- Part B: the racy count (GPU) --------------------------------------------------- */

TestSuite(racy_count, .init = require_gpu, .timeout = CORRECTNESS_TIMEOUT_S);

GRADED_TEST(racy_count, one_thread_counts_exactly_one)
{
    float elapsed_ms;
    unsigned long long count = run_count_once(lab1_launch_racy_count, 1, 1, &elapsed_ms);
    cr_assert_eq(count, 1, "one thread alone cannot race, so the count must be 1; got %llu. %s",
                 count,
                 count == 0 ? "Nothing was counted: does lab1_launch_racy_count launch the kernel, "
                              "and does the kernel add 1 to *count?"
                            : "Is *count incremented more than once per thread?");
}

GRADED_TEST(racy_count, the_slides_launch_loses_updates)
{
    float elapsed_ms;
    unsigned long long threads = (unsigned long long)SLIDES_BLOCKS * SLIDES_THREADS_PER_BLOCK;
    unsigned long long count = run_count_once(lab1_launch_racy_count, SLIDES_BLOCKS,
                                              SLIDES_THREADS_PER_BLOCK, &elapsed_ms);
    cr_assert(count >= 1, "the count is 0: nothing was counted. Does the kernel add 1 to *count?");
    cr_assert(count <= threads, "the count, %llu, is more than the %llu threads launched", count,
              threads);
    cr_assert(count < threads,
              "no update was lost (count = %llu): lab 1 is about the race, so the kernel must use "
              "a plain read, add and write (*count = *count + 1), not an atomic",
              count);
    printf("%u x %u threads: count = %llu, %llu updates lost (%.4f%%)\n", SLIDES_BLOCKS,
           SLIDES_THREADS_PER_BLOCK, count, threads - count,
           100.0 * (double)(threads - count) / (double)threads);
}

GRADED_TEST(racy_count, the_whole_program_returns_the_count_and_a_time)
{
    float elapsed_ms = -1.0f;
    unsigned long long count = lab1_count_program(1, 1, &elapsed_ms);
    cr_expect_eq(count, 1,
                 "lab1_count_program(1, 1, ...) must return 1 (one thread, no race); got %llu. Does "
                 "it zero the counter, launch, and copy the count back into the variable it "
                 "returns?",
                 count);
    cr_expect(elapsed_ms > 0.0f,
              "lab1_count_program must store the kernel's time in *elapsed_ms; got %f. Record "
              "the two events around the launch and read cudaEventElapsedTime after "
              "cudaEventSynchronize.",
              elapsed_ms);

    unsigned long long threads = (unsigned long long)SLIDES_BLOCKS * SLIDES_THREADS_PER_BLOCK;
    count = lab1_count_program(SLIDES_BLOCKS, SLIDES_THREADS_PER_BLOCK, &elapsed_ms);
    cr_expect(count >= 1 && count <= threads,
              "lab1_count_program with the slides' launch returned %llu, outside 1..%llu", count,
              threads);
}

/* ---- Speed --------------------------------------------------------------------------- */

GRADED_TEST(speed, racy_count, .init = require_gpu_and_timing, .timeout = SPEED_TIMEOUT_S)
{
    /* Lab 1 has no previous lab: its table shows the time and the updates lost, beside the
     * reference's. */
    const struct count_contender contenders[] = {
        {"yours (no atomic)", lab1_launch_racy_count, COUNT_RACY},
        {"lab 1 reference", reference_lab1_launch_racy_count, COUNT_RACY},
    };
    report_count_speed(contenders, 2, 1);
}

/* The technique check's run: the racy count once. */
static void run_every_function(const struct technique_inputs *inputs)
{
    lab1_launch_racy_count(inputs->d_bins, 4, 256);
}

/* Lab 1 is about the race: an atomic would hide it. */
GRADED_TEST(technique, the_count_races, .timeout = CORRECTNESS_TIMEOUT_S)
{
    const struct sass_rule rules[] = {
        {SASS_ANY_ATOMIC, false,
         "lab 1 shows the race of a plain read, add and write; your kernels use an atomic, which "
         "is lab 2's subject"},
        {"(^|[^A-Z])LDG?\\.", true,
         "lab 1's count reads the counter, adds one and writes the sum back; your kernels never "
         "load from global memory (a constant written is no count)"},
        {"(^|[^A-Z])STG?\\.", true,
         "lab 1's count reads the counter, adds one and writes the sum back; your kernels never "
         "store to global memory"},
    };
    check_technique(rules, 3, run_every_function);
}
