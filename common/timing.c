#define _POSIX_C_SOURCE 199309L
#include "timing.h"

#include "cuda_check.h"
#include "l2_cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double median_of(double *samples, size_t count)
{
    if (count == 0)
        return 0.0;
    qsort(samples, count, sizeof *samples, compare_doubles);
    if (count % 2 == 1)
        return samples[count / 2];
    return (samples[count / 2 - 1] + samples[count / 2]) / 2.0;
}

double fastest_of(const double *samples, size_t count)
{
    double fastest = count ? samples[0] : 0.0;
    for (size_t i = 1; i < count; i++)
        if (samples[i] < fastest)
            fastest = samples[i];
    return fastest;
}

/* The CPU time of the calling thread: a sequential baseline is charged for the time it ran,
 * not for the time other programs on a shared machine held its core. */
static double thread_cpu_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return (double)now.tv_sec * 1e3 + (double)now.tv_nsec / 1e6;
}

static double time_one_run(struct timed_variant *variant, const struct l2_cleaner *cleaner,
                           cudaEvent_t start, cudaEvent_t stop)
{
    CUDA_CHECK(cudaDeviceSynchronize());
    /* The cache is the GPU's, shared by every process: a run in another process (a grader's
     * worker) starts on a clean one too. */
    if (!variant->on_host)
        leave_l2_clean(cleaner);
    if (variant->start_clock) {
        variant->start_clock();
        variant->run(variant->context);
        return variant->stop_clock();
    }
    if (variant->on_host) {
        double begin = thread_cpu_ms();
        variant->run(variant->context);
        return thread_cpu_ms() - begin;
    }
    CUDA_CHECK(cudaEventRecord(start, 0));
    variant->run(variant->context);
    /* The clock stops when the GPU has done the run's work, not when this thread has learned it.
     * An event recorded after cudaDeviceSynchronize returned also held the thread's waking and
     * the event's own submission: part (not measured apart) of the 12 to 19 microseconds by
     * which one 1 GiB call timed so on an H200 exceeded a call among others, a cost that weighs
     * twice as much on a histogram's share of the copy as on the copy's (lab 8's handout). The
     * legacy default stream waits for every blocking stream's work, so the event follows all
     * of it (timing.h). */
    CUDA_CHECK(cudaEventRecord(stop, 0));
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaEventSynchronize(stop));
    CUDA_CHECK(cudaGetLastError());
    float elapsed_ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&elapsed_ms, start, stop));
    return elapsed_ms;
}

void time_alternating(struct timed_variant *variants, size_t count, int warmup_runs,
                      int timed_runs)
{
    if (timed_runs < TIMING_MIN_RUNS)
        timed_runs = TIMING_MIN_RUNS;
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    double *samples = malloc(count * (size_t)timed_runs * sizeof *samples);
    if (!samples) {
        fprintf(stderr, "time_alternating: out of host memory\n");
        exit(EXIT_FAILURE);
    }
    for (size_t v = 0; v < count; v++)
        variants[v].wrong_results = 0;
    struct l2_cleaner cleaner = l2_cleaner_create();

    for (int run = 0; run < warmup_runs + timed_runs; run++) {
        /* Each run starts one variant further on, so that each takes every place in the order
         * equally often. What the run before leaves in L2 does not follow a variant into its
         * timed region: time_one_run leaves the cache clean first (l2_cache.h says why). */
        for (size_t step = 0; step < count; step++) {
            size_t v = (step + (size_t)run) % count;
            struct timed_variant *variant = &variants[v];
            double ms = time_one_run(variant, &cleaner, start, stop);
            if (variant->result_is_right && !variant->result_is_right(variant->context))
                variant->wrong_results++;
            if (run >= warmup_runs)
                samples[v * (size_t)timed_runs + (size_t)(run - warmup_runs)] = ms;
        }
    }
    for (size_t v = 0; v < count; v++) {
        double *runs = &samples[v * (size_t)timed_runs];
        /* The host CPU of a cloud GPU machine is shared and its speed drifts: on the H200's
         * host one sequential histogram took 941 to 1094 ms within one process, in slow spells
         * several runs long, at times longer than all of one input's runs. Others' load only ever
         * adds time, so a CPU baseline reports its fastest
         * run, the nearest to the CPU's own speed (and the GPU's speedup over it the
         * conservative one). docs/results.md has what this does and does not steady. */
        variants[v].time_ms = variants[v].on_host ? fastest_of(runs, (size_t)timed_runs)
                                                  : median_of(runs, (size_t)timed_runs);
    }

    free(samples);
    l2_cleaner_destroy(&cleaner);
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
}
