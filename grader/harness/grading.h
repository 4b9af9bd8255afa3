/* What every lab's grader shares: its options, the GPU check, and the names of the reference
 * solutions it compares against.
 *
 * Criterion runs every test in a fresh process, re-executing the grader, so options travel
 * in the environment (the ./grade script sets them) and nothing is kept between tests. */
#ifndef GRADER_GRADING_H
#define GRADER_GRADING_H

#include <stdbool.h>
#include <stdint.h>

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

/* One line naming the GPU and the timing setup, printed above every speed table. */
void print_speed_banner(const char *what);

/* For the points a course gives for speed: appends "input<TAB>your ms<TAB>reference ms" to
 * the file GRADE_PERF_FILE names (./grade sets it); does nothing when it is unset. */
void record_performance(const char *input, double student_ms, double reference_ms);

#endif
