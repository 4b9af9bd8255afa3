/* The results model: one grading's tests, verdict, points and exit code, decided in one place
 * from the grading record (records.h) and the course's points (points.h). Every report
 * (terminal, results.json, TAP, JUnit XML, the class summary) is written from this model
 * (reports.h), so no report can disagree with another. */
#ifndef GRADER_RESULTS_MODEL_H
#define GRADER_RESULTS_MODEL_H

#include "points.h"

#include <stdbool.h>
#include <stdio.h>

enum test_state { STATE_PASSED, STATE_FAILED, STATE_NOT_RUN };

/* Why a test failed: the code's fault. */
enum failure_cause {
    CAUSE_NONE,
    CAUSE_WRONG,       /* a check failed: a wrong answer, a missing technique */
    CAUSE_CRASHED,     /* the test process died of a signal */
    CAUSE_TIMED_OUT,   /* it ran past its time limit */
    CAUSE_CUDA_ERROR,  /* a CUDA call failed */
    CAUSE_EXITED,      /* the process exited with a status other than 0 */
    CAUSE_ENDED_EARLY, /* the process ended, status 0, before the test reached its end */
    CAUSE_BUILD,       /* the code did not build */
    CAUSE_NO_FILE,     /* there was no file to build */
    CAUSE_COUNT
};

/* Why a test did not run: never the code's fault, and never a point earned. */
enum not_run_reason {
    NOT_RUN_FILTERED,     /* --filter left it out: not in the maximum either */
    NOT_RUN_NOT_ASKED,    /* an optional test not asked for (--input, timing): not in the maximum */
    NOT_RUN_NEEDS_GPU,    /* no usable GPU here: in the maximum, 0 points */
    NOT_RUN_MACHINE,      /* the grading machine cannot run it: in the maximum, 0 points */
    NOT_RUN_NOT_BUILT,    /* the code did not build: in the maximum, 0 points */
    NOT_RUN_NO_FILE,      /* there was no file to grade: in the maximum, 0 points */
};

struct graded_test {
    char *name;   /* "suite/test" */
    enum test_state state;
    enum failure_cause cause;
    enum not_run_reason not_run;
    char *output; /* what went wrong, or why it did not run; "" when it passed */
    double seconds;
    double score, max_score;
    bool in_maximum;
};

enum verdict {
    VERDICT_PASSED,
    VERDICT_FAILED,
    VERDICT_DOES_NOT_COMPILE,
    VERDICT_NO_FILE,
    VERDICT_NOT_GRADED_ON_GPU,
    VERDICT_MACHINE_BROKEN,
    VERDICT_NO_TEST_RAN,
};

/* The exit codes of ./grade, grade-class and results. */
enum grade_exit {
    EXIT_GRADE_PASSED = 0,
    EXIT_GRADE_NOT_PASSED = 1,
    EXIT_GRADE_USAGE = 2,        /* a bad command line or configuration */
    EXIT_GRADE_NO_GPU = 3,       /* the GPU tests could not run here; the rest passed */
    EXIT_GRADE_MACHINE = 4,      /* the grading machine is broken: not the code's fault */
};

/* What the grading was given, besides the record. */
struct grading_setup {
    const char *lab;          /* the lab's folder name, "lab5-privatized" */
    const char *student;      /* an id in class grading, or NULL */
    const char *build_output; /* the build's output when it failed, else NULL */
    const char *no_file;      /* why there is no file to grade, else NULL */
    const char *filter;       /* --filter, or NULL */
    bool no_timing;           /* --no-timing: the timed tests were not asked for, whether the
                                 code built or not (the maximum must not depend on it) */
    const char *strip_paths[4]; /* prefixes removed from build output (NULL-terminated) */
    unsigned long long seed;
    bool has_seed;
    const struct points_config *points;
};

/* One input of the speed test: your time and the reference's, timed side by side. */
struct timed_input {
    char *test, *input;
    double mine_ms, reference_ms;
};

struct grading {
    struct grading_setup setup;
    char short_lab[16]; /* "lab5" */
    struct graded_test *tests;
    int count;
    int passed, failed, needs_gpu;
    int not_run; /* in the maximum but not run (no GPU, a tool missing, the build failed);
                    tests left out by --filter or not asked for are not counted */
    int causes[CAUSE_COUNT];
    char *gpu_reason;     /* why the GPU tests did not run (the first reason) */
    char *machine_problem; /* the first thing the machine could not do */
    double time_ratio;    /* your time over the reference's, geometric mean; 0: not timed */
    int timed_inputs;
    struct timed_input *timed; /* each timed input's two times, timed_inputs of them */
    double speed_points, speed_max, speed_full_at; /* speed_max: the performance rule's points */
    bool has_speed_rule;
    bool speed_in_maximum; /* false when the timed tests were not asked for (--no-timing) or left
                              out by --filter: the speed's points are then out of the maximum */
    char *speed_output;    /* the performance line: the ratio, or why there are no speed points */
    double score, max_score, seconds;
    enum verdict verdict;
    int exit_code;
    char **problems; /* one line each, for the class table */
    int problem_count;
};

/* Reads the record file and decides. Returns 0, or -1 with a message when the record cannot
 * be read or holds a line that is not a record (a broken grading machine). */
int grading_decide(const struct grading_setup *setup, const char *record_text,
                   struct grading *grading, char *error, size_t error_size);

void grading_free(struct grading *grading);

const char *verdict_name(enum verdict verdict);
const char *failure_cause_name(enum failure_cause cause);

#endif
