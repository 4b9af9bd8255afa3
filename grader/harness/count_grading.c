#include "count_grading.h"

#include "cuda_check.h"
#include "grading.h"
#include "report.h"
#include "timing.h"

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

/* One launch of the slides' count takes well under a millisecond: a timed run makes
 * MAX_CALLS_PER_TIMED_RUN of them back to back, sent to the worker together (grading.h). All but
 * the last count into a scratch counter; the last one's count is the one checked and shown. */
#define LAUNCHES_PER_RUN MAX_CALLS_PER_TIMED_RUN

struct count_run {
    const struct count_contender *contender;
    unsigned long long *d_count, *d_scratch_count;
    unsigned long long last_count;
};

static void run_contender(void *context)
{
    struct count_run *run = context;
    for (int launch = 1; launch < LAUNCHES_PER_RUN; launch++)
        run->contender->launch(run->d_scratch_count, SLIDES_BLOCKS, SLIDES_THREADS_PER_BLOCK);
    run->contender->launch(run->d_count, SLIDES_BLOCKS, SLIDES_THREADS_PER_BLOCK);
}

static bool count_is_right(void *context)
{
    struct count_run *run = context;
    const unsigned long long threads =
        (unsigned long long)SLIDES_BLOCKS * SLIDES_THREADS_PER_BLOCK;
    CUDA_CHECK(cudaMemcpy(&run->last_count, run->d_count, sizeof run->last_count,
                          cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemset(run->d_count, 0, sizeof *run->d_count)); /* for the next run */
    if (run->contender->kind == COUNT_RACY)
        return run->last_count >= 1 && run->last_count <= threads;
    return run->last_count == threads;
}

void report_count_speed(const struct count_contender *contenders, int count, int baseline_index)
{
    struct grading_options options = grading_options();
    struct count_run runs[8];
    struct timed_variant variants[8];
    cr_assert(count <= 8, "report_count_speed: at most 8 contenders");
    for (int c = 0; c < count; c++) {
        runs[c] = (struct count_run){&contenders[c], NULL, NULL, 0};
        CUDA_CHECK(cudaMalloc((void **)&runs[c].d_count, sizeof *runs[c].d_count));
        CUDA_CHECK(cudaMalloc((void **)&runs[c].d_scratch_count, sizeof *runs[c].d_count));
        CUDA_CHECK(cudaMemset(runs[c].d_count, 0, sizeof *runs[c].d_count));
        variants[c] = worker_variant(contenders[c].label, run_contender, count_is_right,
                                     &runs[c]);
    }
    time_alternating(variants, (size_t)count, options.warmup_runs, options.timed_runs);
    for (int c = 0; c < count; c++)
        variants[c].time_ms /= LAUNCHES_PER_RUN;
    record_performance("slides launch", variants[0].time_ms, variants[count - 1].time_ms);

    char what[160];
    snprintf(what, sizeof what, "Speed: %u blocks x %u threads, each adding 1 to one counter (the "
                                "time of one launch, from runs of %d launches)",
             SLIDES_BLOCKS, SLIDES_THREADS_PER_BLOCK, LAUNCHES_PER_RUN);
    print_speed_banner(what);
    char baseline_header[64];
    snprintf(baseline_header, sizeof baseline_header, "speedup over %s",
             contenders[baseline_index].label);
    const char *headers[] = {"kernel", "count (last launch)", "updates lost", "time a launch",
                             baseline_header};
    struct table table;
    table_init(&table, 5, headers);
    const unsigned long long threads = (unsigned long long)SLIDES_BLOCKS * SLIDES_THREADS_PER_BLOCK;
    for (int c = 0; c < count; c++) {
        char count_text[32], lost_text[48], time_text[32], speedup_text[32];
        snprintf(count_text, sizeof count_text, "%llu", runs[c].last_count);
        unsigned long long lost = runs[c].last_count < threads ? threads - runs[c].last_count : 0;
        snprintf(lost_text, sizeof lost_text, "%llu (%.4f%%)", lost,
                 100.0 * (double)lost / (double)threads);
        format_ms(time_text, sizeof time_text, variants[c].time_ms);
        format_speedup(speedup_text, sizeof speedup_text, variants[baseline_index].time_ms,
                       variants[c].time_ms);
        const char *cells[] = {contenders[c].label, count_text, lost_text, time_text,
                               speedup_text};
        table_add_row(&table, cells);
    }
    table_print(stdout, &table);
    fflush(stdout);

    for (int c = 0; c < count; c++) {
        cr_expect(variants[c].wrong_results == 0,
                  "%s miscounted in %d of its timed runs (last count %llu): a result must be "
                  "right every time, not only the first",
                  contenders[c].label, variants[c].wrong_results, runs[c].last_count);
        CUDA_CHECK(cudaFree(runs[c].d_count));
        CUDA_CHECK(cudaFree(runs[c].d_scratch_count));
    }
}
