/* Timing by the rules of the kit: a warm-up first, at least ten timed runs, the median, and the
 * variants being compared alternating run by run, so that clock boosts, temperature and other
 * tenants touch them all alike. Device work in this process is timed by CUDA events; work run
 * in another process (a grader's worker) by the variant's own clock (start_clock, stop_clock).
 * A sequential CPU baseline is the one exception: it reports its fastest run (timing.c says
 * why). */
#ifndef COMMON_TIMING_H
#define COMMON_TIMING_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TIMING_MIN_RUNS 10

struct timed_variant {
    const char *name;
    void (*run)(void *context);
    /* Checks what the run left behind, outside the timed region; NULL when nothing to check. */
    bool (*result_is_right)(void *context);
    void *context;
    bool on_host; /* a single-threaded CPU baseline: timed by its thread's CPU time, not by
                     CUDA events */
    /* Set for code that runs in another process (a grader's worker), which this process's
     * events cannot time: run is bracketed by them, and stop_clock returns the milliseconds. */
    void (*start_clock)(void);
    double (*stop_clock)(void);

    /* filled in by time_alternating: the median of the timed runs, or for an on_host baseline
       the fastest of them */
    double time_ms;
    int wrong_results;
};

/* Sorts samples in place and returns their median (the mean of the middle two for an even count). */
double median_of(double *samples, size_t count);

/* The smallest of samples; 0 for none. */
double fastest_of(const double *samples, size_t count);

/* Runs every variant warmup_runs times untimed, then timed_runs times timed, interleaved,
 * each run starting one variant further on (v0 v1 v2, v1 v2 v0, v2 v0 v1, ...). A device
 * variant's timed region starts on an idle device whose L2 cache holds only clean lines of no
 * variant's data (l2_cache.h), and ends with an event on the legacy default stream after the
 * run, which waits for the work of every blocking stream; the next run starts once the device
 * is idle, so no run spills into another's time. The variants are the kit's own code (make bench,
 * make lessons), which launches on blocking streams only: work on a non-blocking stream would
 * escape the clock (a grader times code under test otherwise: grader/harness/speed.h).
 * timed_runs below TIMING_MIN_RUNS is raised to it. */
void time_alternating(struct timed_variant *variants, size_t count, int warmup_runs,
                      int timed_runs);

#ifdef __cplusplus
}
#endif

#endif
