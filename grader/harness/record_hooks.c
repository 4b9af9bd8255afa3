/* What a grader tells the results model, through the grading record (grader/results/records.h):
 * Criterion's runner lists every test and gives each one's outcome; a test process says that
 * its test reached its end, and why a test could not run. */
#include "crossing.h"
#include "device.h"
#include "grading.h"
#include "records.h"

#include <criterion/criterion.h>
#include <criterion/hooks.h>
#include <criterion/internal/ordered-set.h>
#include <stdio.h>
#include <string.h>

static void test_name(char *name, size_t size, const struct criterion_test *test)
{
    snprintf(name, size, "%s/%s", test->category, test->name);
}

static void record_for_current_test(enum record_kind kind, const char *text)
{
    char name[256];
    test_name(name, sizeof name, criterion_current_test);
    const char *fields[] = {text};
    record_append(kind, name, text ? 1 : 0, fields);
}

void record_current_test(enum test_record what, const char *reason)
{
    static const enum record_kind kinds[] = {
        [TEST_REACHED_END] = RECORD_END,
        [TEST_NEEDS_GPU] = RECORD_NEEDS_GPU,
        [TEST_NOT_ASKED] = RECORD_NOT_ASKED,
        [TEST_MACHINE_PROBLEM] = RECORD_MACHINE,
    };
    record_for_current_test(kinds[what], reason);
}

void grader_test_reached_end(void)
{
    record_current_test(TEST_REACHED_END, NULL);
}

/* The crossing's hook (grader/crossing/crossing.h): the machine cannot run this test. */
void crossing_machine_problem_observed(const char *reason)
{
    record_current_test(TEST_MACHINE_PROBLEM, reason);
}

/* common/cuda_check.c calls this, when a grader defines it, before it ends the process; so does
 * the crossing, for a CUDA call that failed in the worker. On a machine with no GPU, a test
 * whose code makes CUDA calls could not run here: it is not run (and stays in the maximum), not
 * failed. Whether there is one is asked in this process, which the code under test never runs
 * in: it can fail a call, not take the GPU away. */
void cuda_failure_observed(const char *message)
{
    char absent[256];
    if (gpu_absent(absent, sizeof absent)) {
        /* The call and its error are above, on stderr (cuda_check printed them). */
        const char *reason = "no CUDA GPU on this machine, and this test's code makes CUDA calls";
        record_current_test(TEST_NEEDS_GPU, reason);
        cr_skip_test("GPU test skipped: %s", reason);
    }
    record_for_current_test(RECORD_CUDA_ERROR, message);
}

ReportHook(PRE_ALL)(struct criterion_test_set *tests)
{
    FOREACH_SET(struct criterion_suite_set *suite, tests->suites) {
        FOREACH_SET(struct criterion_test *test, suite->tests) {
            char name[256];
            test_name(name, sizeof name, test);
            const char *description = test->data ? test->data->description : NULL;
            bool optional = description && strcmp(description, OPTIONAL_TEST) == 0;
            const char *fields[] = {"optional"};
            record_append(RECORD_LISTED, name, optional ? 1 : 0, fields);
        }
    }
}

/* Criterion reports a test's end through POST_TEST, but a crashed test's through TEST_CRASH only. */
static void record_outcome(struct criterion_test_stats *stats)
{
    char name[256], detail[32] = "";
    test_name(name, sizeof name, stats->test);
    const char *outcome;
    if (stats->timed_out) {
        outcome = "timed-out";
    } else if (stats->crashed || stats->signal) {
        outcome = "crashed";
        snprintf(detail, sizeof detail, "%d", stats->signal);
    } else if (stats->test_status == CR_STATUS_SKIPPED) {
        outcome = "skipped";
    } else if (stats->exit_code != 0) {
        outcome = "exited";
        snprintf(detail, sizeof detail, "%d", stats->exit_code);
    } else {
        outcome = stats->test_status == CR_STATUS_PASSED ? "passed" : "failed";
    }
    char seconds[32];
    snprintf(seconds, sizeof seconds, "%.3f", stats->elapsed_time);
    const char *fields[] = {outcome, detail, seconds};
    record_append(RECORD_OUTCOME, name, 3, fields);
    if (stats->test_status == CR_STATUS_SKIPPED && stats->message) {
        const char *message[] = {stats->message};
        record_append(RECORD_MESSAGE, name, 1, message);
    }
    /* The checks' own messages: they say where in the lab, not where in the harness. */
    for (struct criterion_assert_stats *check = stats->asserts; check; check = check->next) {
        if (check->passed || !check->message)
            continue;
        const char *message[] = {check->message};
        record_append(RECORD_MESSAGE, name, 1, message);
    }
}

ReportHook(POST_TEST)(struct criterion_test_stats *stats)
{
    record_outcome(stats);
}

ReportHook(TEST_CRASH)(struct criterion_test_stats *stats)
{
    record_outcome(stats);
}
