/* What every lab's grader shares: its options, the GPU check, and the names of the reference
 * solutions it compares against.
 *
 * Criterion runs every test in a fresh process, re-executing the grader, so options travel
 * in the environment (the ./grade script sets them) and nothing is kept between tests. */
#ifndef GRADER_GRADING_H
#define GRADER_GRADING_H

#include <stdbool.h>
#include <stdint.h>

#include "timing.h"

/* A hang is reported after this long; a correct kernel needs a fraction of it. */
#define CORRECTNESS_TIMEOUT_S 60
#define SPEED_TIMEOUT_S 400

struct grading_options {
    uint64_t seed;          /* GRADE_SEED: seeds every generated input */
    int timed_runs;         /* GRADE_RUNS: timed runs per variant (at least 10) */
    int warmup_runs;
    uint64_t timing_bytes;  /* GRADE_TIMING_BYTES: size of the timed inputs */
    bool timing;            /* GRADE_NO_TIMING unset */
    const char *input_file; /* GRADE_INPUT, or NULL */
    const char *data_dir;   /* GRADE_DATA_DIR: where the shipped text lives */
};

/* Reads the options; a malformed value fails the test with a message naming the variable. */
struct grading_options grading_options(void);

/* Suite .init hooks: skip the test, with a one-line reason, when there is no usable GPU (or,
 * for speed tests, when timing was switched off). */
void require_gpu(void);
void require_gpu_and_timing(void);
/* For the tests on the student's own --input file: not asked for without one. */
void require_input_file(void);
void require_input_file_and_gpu(void);

/* For a test that needs most of the GPU's memory (an input past 4 GiB): waits until no other
 * such test of this grading runs, and keeps the turn until the test process ends. The other
 * tests run side by side (./grade --jobs); two of these at once could each find the memory free
 * and then not both fit. Then skips the test, as one this GPU cannot run, unless it has bytes
 * free and 1 GiB more. */
void take_turn_with_gpu_memory(uint64_t bytes);

/* malloc for a test: fails the test, naming the size, when the host has no memory for it. */
void *grading_malloc(uint64_t bytes);

/* Timing code that runs in a worker (grader/crossing/crossing.h), which this process's CUDA
 * events cannot see: a timed run is several calls, each on its own copy of the input (so that no
 * call can pass on another's answer), sent to the worker together; the clock is this process's,
 * from the request to the answer, which the worker gives once its own work on the GPU has
 * finished. A time a call is a run's median divided by its calls, so it holds a share of the
 * request's fixed cost (the socket, waking the worker, the switch of the GPU to its context),
 * which varies from run to run. A run makes as many calls as last about TIMED_RUN_MS, at most
 * MAX_CALLS_PER_TIMED_RUN: that share, and its variation, is then a few percent of a
 * contender's time. With ten calls whatever their length, lab 3's reference graded as a student
 * measured 1.109 (docs/results/make-test-h200-crossing.log). */
#define MAX_CALLS_PER_TIMED_RUN 32
#define TIMED_RUN_MS 4.0

/* How many copies of an input of bytes_per_copy to time on: MAX_CALLS_PER_TIMED_RUN, or fewer
 * (at least 1) where they would fill more than half the GPU's free memory. */
int timed_copies(uint64_t bytes_per_copy);

/* How many calls a timed run of variant makes: as many as last about TIMED_RUN_MS, between 1 and
 * max_calls (1 on the host). Found with runs of one call (*calls is set to 1 for them, and read by variant's run;
 * their results are checked and dropped). */
int calls_per_run_for(struct timed_variant *variant, int *calls, int max_calls);

/* A variant whose run queues its calls to a worker (time_alternating sends them and times them). */
struct timed_variant worker_variant(const char *name, void (*queue_calls)(void *),
                                    bool (*result_is_right)(void *), void *context);

/* The device-to-device copy that every rate is a share of, timed beside the contenders: a run
 * copies each timed copy of the input once, as a contender reads each once. */
struct copy_contender {
    const void *d_sources[MAX_CALLS_PER_TIMED_RUN]; /* the caller's copies of the input */
    int calls;
    uint64_t bytes;
    void *d_destination;
};

/* Allocates the destination of a copy of bytes a call, calls a run; the caller sets
 * d_sources[0, calls). */
void copy_contender_init(struct copy_contender *copy, int calls, uint64_t bytes);
struct timed_variant copy_contender_variant(struct copy_contender *copy);
void copy_contender_free(struct copy_contender *copy);

/* One line naming the GPU and the timing setup, printed above every speed table. */
void print_speed_banner(const char *what);

/* For the points a course gives for speed: records, for the results model, your time and
 * the reference's on one input. */
void record_performance(const char *input, double student_ms, double reference_ms);

/* What a test process tells the results model about its test (record_hooks.c). */
enum test_record {
    TEST_REACHED_END,     /* the body ran to its end: without this, a pass is no pass */
    TEST_NEEDS_GPU,       /* skipped: no usable GPU here */
    TEST_NOT_ASKED,       /* skipped: not asked for (no --input, --no-timing) */
    TEST_MACHINE_PROBLEM, /* this machine cannot grade it (a tool is missing): not the code's fault */
};
void record_current_test(enum test_record what, const char *reason);

/* Every grader test is a GRADED_TEST: Criterion's Test, whose body, once it has run to its end,
 * says so. A test process that ends early (the harness crashed, or was killed) never says so,
 * and the results model fails that test even where Criterion saw exit status 0. (Code under test
 * that ends its own process ends its worker: the proxy fails the test, naming the cause.) */
void grader_test_reached_end(void);
/* The .description of a test that runs only when asked for (--input FILE): the grading record
 * lists it as optional, so that it stays out of the maximum whenever it does not run. */
#define OPTIONAL_TEST "optional: runs on the file of --input"
#define GRADED_TEST(suite, name, ...) Test(suite, name, .fini = grader_test_reached_end, ##__VA_ARGS__)

#endif
