/* What every lab's grader shares: its options, the GPU check, the speed record and the test
 * records.
 *
 * Criterion runs every test in a fresh process, re-executing the grader, so options travel
 * in the environment (the ./grade script sets them) and nothing is kept between tests. */
#ifndef GRADER_GRADING_H
#define GRADER_GRADING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>


/* A hang is reported after this long; a correct kernel needs a fraction of it. */
#define CORRECTNESS_TIMEOUT_S 60
#define SPEED_TIMEOUT_S 400

struct grading_options {
    uint64_t seed;          /* GRADE_SEED: seeds every generated input */
    int timed_runs;         /* GRADE_RUNS: timed runs per contender (at least 10) */
    bool timing;            /* GRADE_NO_TIMING unset */
    const char *input_file; /* GRADE_INPUT, or NULL */
};

/* A timed call's input, in bytes: at least a quarter more than the GPU's L2 cache holds (every
 * call reads an input of its own, once). Labs 8 and 9, which chase the memory's limit, time calls
 * of 1 GiB, as make bench does: on smaller inputs a kernel's start and end are a larger share of
 * its time. A run reads about TIMED_RUN_BYTES, in calls of its own. */
#define TIMED_CALL_BYTES (64ull << 20)
#define LARGE_TIMED_CALL_BYTES (1ull << 30)
#define TIMED_RUN_BYTES (4ull << 30)

/* The bytes of a timed call: the lab's, raised where the GPU's L2 cache would hold most of it
 * (in whole MiB). */
uint64_t timed_call_bytes(uint64_t lab_bytes);

/* Reads the options; a malformed value fails the test with a message naming the variable. */
struct grading_options grading_options(void);

/* Suite .init hooks: skip the test, with a one-line reason, when there is no usable GPU (or,
 * for speed tests, when timing was switched off). */
void require_gpu(void);
void require_gpu_and_timing(void);
/* For a timed test that explores rather than grades (lab 6's sweep of its parameters): run
 * only when ./grade's --filter names it, so that it does not lengthen every grading; else
 * skipped as not asked for, saying how to run it. */
void require_gpu_timing_and_a_filter(void);
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

/* The launch shape a contract asks for (the count labs' one launch of one thread a count, lab 9
 * part A's blocks of threads_per_block, lab 6's grids): every launch of the student's last
 * request a 1-D grid of 1-D blocks, of threads_per_block threads (unless 0: any), in a grid of
 * `blocks` blocks (unless 0: any), or, where `elements` is not 0, of just enough blocks (or one
 * more) for threads of elements_per_thread elements each to cover `elements`; at least one
 * launch a call,
 * and exactly one where one_each. The launches are the worker's notes (crossing.h).
 * On a timed run of `calls` calls: true, or false and why. */
struct launch_shape_rule {
    unsigned int threads_per_block, blocks;
    bool one_each;
    uint64_t elements;
    unsigned int elements_per_thread;
};
/* Whether one launch of this grid and these blocks keeps the rule's shape. */
bool launch_keeps_shape(const unsigned int grid[3], const unsigned int block[3],
                        struct launch_shape_rule rule);
bool launched_each_call_in_shape(int calls, struct launch_shape_rule rule, char *why,
                                 size_t why_size);
/* On a correctness call: true, or the test fails here, saying what was launched. */
bool expect_launched_in_shape(const char *where, struct launch_shape_rule rule);

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
