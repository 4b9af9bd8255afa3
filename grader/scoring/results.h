/* A grade's results as data: the tests of a Criterion TAP report, and the autograder format
 * Gradescope reads (results.json: score, and per test name, score, max_score and output). */
#ifndef GRADER_RESULTS_H
#define GRADER_RESULTS_H

#include <stdio.h>

enum test_status { TEST_PASSED, TEST_FAILED, TEST_SKIPPED };

struct test_result {
    char name[160];        /* "suite/test" */
    enum test_status status;
    char output[2048];     /* why it failed or was skipped, from the report ("" if passed) */
    double score, max_score;
};

/* Parses a TAP report. Returns the number of tests (at most max_tests kept), or -1 when the text
 * is not a TAP report. */
int parse_tap_report(const char *text, struct test_result *tests, int max_tests);

/* Writes text as a JSON string literal, quotes and escapes included. */
void write_json_string(FILE *out, const char *text);

/* Writes Gradescope's results.json: the total score, an output for the whole submission, and
 * one entry per test. */
void write_gradescope_results(FILE *out, double score, const char *output,
                              const struct test_result *tests, int count);

#endif
