#include "count_grading.h"

#include "cuda_check.h"
#include "grading.h"
#include "report.h"
#include "speed.h"

#include <criterion/criterion.h>
#include <stdio.h>

struct launch_shape {
    unsigned int blocks, threads_per_block;
};

static const struct launch_shape all_shapes[] = {
    {1, 1},     {1, 32},   {1, 1000}, {1, 1024}, {3, 999},   {7, 33},
    {1000, 1},  {257, 96}, {4097, 255}, {65536, 64}, {SLIDES_BLOCKS, SLIDES_THREADS_PER_BLOCK},
};
/* Few enough threads for compute-sanitizer, which slows a kernel down 10 to 100 times. */
static const struct launch_shape small_shapes[] = {{1, 1}, {3, 97}, {2, 1024}};

static void check_shapes(const char *function_name, count_launcher *launch,
                         const struct launch_shape *shapes, size_t shape_count)
{
    int wrong = 0;
    for (size_t s = 0; s < shape_count; s++) {
        struct launch_shape shape = shapes[s];
        unsigned long long threads = (unsigned long long)shape.blocks * shape.threads_per_block;
        float elapsed_ms;
        unsigned long long count =
            run_count_once(launch, shape.blocks, shape.threads_per_block, &elapsed_ms);
        char where[160];
        snprintf(where, sizeof where, "%s with %u blocks of %u threads", function_name,
                 shape.blocks, shape.threads_per_block);
        /* One thread a count: a kernel of fewer threads that adds more is not the lab. */
        struct launch_shape_rule rule = {.threads_per_block = shape.threads_per_block,
                                         .blocks = shape.blocks, .one_each = true};
        if (!expect_launched_in_shape(where, rule))
            wrong++;
        if (count == threads)
            continue;
        wrong++;
        const char *hint =
            count == 0                    ? "nothing was counted: did the kernel launch, and add to *count?"
            : count < threads             ? "increments were lost: every update of a shared counter needs an atomic, "
                                            "and a block's total may be read only after __syncthreads()"
            : count % threads == 0        ? "every thread was counted several times: is the block's total added by "
                                            "every thread instead of by one?"
                                          : "more counted than there are threads: is the shared counter zeroed "
                                            "before anyone counts, with a __syncthreads() after?";
        cr_expect_fail("%s with %u blocks of %u threads: expected %llu, got %llu\n  %s",
                       function_name, shape.blocks, shape.threads_per_block, threads, count, hint);
    }
    if (wrong == 0)
        printf("%s: exact for all %zu launch shapes, from %u x %u to %u x %u\n", function_name,
               shape_count, shapes[0].blocks, shapes[0].threads_per_block,
               shapes[shape_count - 1].blocks, shapes[shape_count - 1].threads_per_block);
}

void check_exact_counts(const char *function_name, count_launcher *launch)
{
    check_shapes(function_name, launch, all_shapes, sizeof all_shapes / sizeof all_shapes[0]);
}

void check_small_counts(const char *function_name, count_launcher *launch)
{
    check_shapes(function_name, launch, small_shapes, sizeof small_shapes / sizeof small_shapes[0]);
}

/* One launch of the slides' count takes well under a millisecond: a timed run makes this many,
 * each into a counter of its own, sent to the worker together (speed.h), and there are at least
 * COUNT_TIMED_RUNS runs. With runs of 32 launches and 10 runs, the reference graded as itself
 * read 0.976 to 1.048 (H100, seeds 1-5, docs/results/h100/ratio-sweep-2026-11-25b.log); with 64
 * and 31, lab 1's racy count (whose time varies with how its races fall) 0.994 to 1.026 (H200,
 * docs/results/h200/ratio-sweep-2026-11-25.log). */
#define LAUNCHES_PER_RUN MAX_TIMED_CALLS
#define COUNT_TIMED_RUNS 61

static const unsigned long long SLIDES_THREADS =
    (unsigned long long)SLIDES_BLOCKS * SLIDES_THREADS_PER_BLOCK;

static void expected_count(const struct speed_workload *workload, unsigned long long *expected)
{
    (void)workload;
    *expected = SLIDES_THREADS;
}

static bool exact_count(const unsigned long long *got, const unsigned long long *expected,
                        unsigned int counters)
{
    (void)counters;
    return *got == *expected;
}

/* A racy count loses updates: it must lie in [1, threads], not be exact. */
static bool racy_count(const unsigned long long *got, const unsigned long long *expected,
                       unsigned int counters)
{
    (void)counters;
    return *got >= 1 && *got <= *expected;
}

static void call_count_contender(const void *context, const void *input, uint64_t elements,
                                 unsigned long long *count)
{
    (void)input;
    (void)elements;
    const struct count_contender *contender = context;
    contender->launch(count, SLIDES_BLOCKS, SLIDES_THREADS_PER_BLOCK);
}

static bool launches_of_the_slides(const void *context, int calls, char *why, size_t why_size)
{
    (void)context;
    struct launch_shape_rule rule = {.threads_per_block = SLIDES_THREADS_PER_BLOCK,
                                     .blocks = SLIDES_BLOCKS, .one_each = true};
    return launched_each_call_in_shape(calls, rule, why, why_size);
}

void report_count_speed(const struct count_contender *contenders, int count, int baseline_index)
{
    cr_assert(count <= 8, "report_count_speed: at most 8 contenders");
    struct speed_workload workload = {
        .element_name = "launch", .result_counters = 1, .default_calls = LAUNCHES_PER_RUN,
        .min_timed_runs = COUNT_TIMED_RUNS,
        .result_initial_byte = 0, .input_count = 1, .expected_without_input = expected_count,
        .result_is_right = exact_count};
    struct timed_contender timed[8];
    for (int c = 0; c < count; c++)
        timed[c] = (struct timed_contender){.label = contenders[c].label,
                                            .student = c == 0,
                                            .call = call_count_contender,
                                            .context = &contenders[c],
                                            .result_is_right = contenders[c].kind == COUNT_RACY
                                                                   ? racy_count
                                                                   : NULL,
                                            .launches_are_right = launches_of_the_slides};
    static struct speed_results results;
    snprintf(results.input_names[0], sizeof results.input_names[0], "slides launch");
    time_contenders(&workload, timed, count, &results);
    const double *times = results.contender_ms;
    record_performance("slides launch", times[0], times[count - 1]);

    printf("\nSpeed: %u blocks x %u threads, each adding 1 to one counter (the time of one launch, "
           "from runs of %d launches)\n",
           SLIDES_BLOCKS, SLIDES_THREADS_PER_BLOCK, LAUNCHES_PER_RUN);
    print_timing_method(&workload, timed, count);
    char baseline_header[64];
    snprintf(baseline_header, sizeof baseline_header, "speedup over %s",
             contenders[baseline_index].label);
    const char *headers[] = {"kernel", "count (last launch)", "updates lost", "time a launch",
                             baseline_header};
    struct table table;
    table_init(&table, 5, headers);
    for (int c = 0; c < count; c++) {
        unsigned long long counted = results.last_results[c][0];
        char count_text[32], lost_text[48], time_text[32], speedup_text[32];
        snprintf(count_text, sizeof count_text, "%llu", counted);
        unsigned long long lost = counted < SLIDES_THREADS ? SLIDES_THREADS - counted : 0;
        snprintf(lost_text, sizeof lost_text, "%llu (%.4f%%)", lost,
                 100.0 * (double)lost / (double)SLIDES_THREADS);
        format_ms(time_text, sizeof time_text, times[c]);
        format_speedup(speedup_text, sizeof speedup_text, times[baseline_index], times[c]);
        const char *cells[] = {contenders[c].label, count_text, lost_text, time_text,
                               speedup_text};
        table_add_row(&table, cells);
    }
    table_print(stdout, &table);
    fflush(stdout);
}
