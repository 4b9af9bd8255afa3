#define _POSIX_C_SOURCE 200809L
#include "model.h"

#include "records.h"
#include "reports.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUILD_TEST_NAME "build/compiles"
/* The suite of the timed tests, which earn the performance rule's points (grading.h). */
#define TIMED_SUITE "speed"

static bool is_timed(const struct graded_test *test)
{
    return strncmp(test->name, TIMED_SUITE "/", strlen(TIMED_SUITE) + 1) == 0;
}
#define BUILD_OUTPUT_LINES 12
#define MAX_PROBLEMS 24

static const char *const verdict_names[] = {
    [VERDICT_PASSED] = "passed",
    [VERDICT_FAILED] = "failed",
    [VERDICT_DOES_NOT_COMPILE] = "does not compile",
    [VERDICT_NO_FILE] = "no file",
    [VERDICT_NOT_GRADED_ON_GPU] = "not graded on a GPU",
    [VERDICT_MACHINE_BROKEN] = "grading machine broken",
    [VERDICT_NO_TEST_RAN] = "no test ran",
};

static const char *const cause_names[CAUSE_COUNT] = {
    [CAUSE_NONE] = "",
    [CAUSE_WRONG] = "failed",
    [CAUSE_CRASHED] = "crashed",
    [CAUSE_TIMED_OUT] = "timed out",
    [CAUSE_CUDA_ERROR] = "stopped by a CUDA error",
    [CAUSE_EXITED] = "exited",
    [CAUSE_ENDED_EARLY] = "ended early",
    [CAUSE_BUILD] = "does not build",
    [CAUSE_NO_FILE] = "no file",
};

const char *verdict_name(enum verdict verdict) { return verdict_names[verdict]; }
const char *failure_cause_name(enum failure_cause cause) { return cause_names[cause]; }

/* Every text of a grading is kept through copy_text or append_line: inert from there on. */
static char *copy_text(const char *text)
{
    char *copy = inert_copy(text ? text : "");
    if (!copy) {
        fprintf(stderr, "results: out of memory\n");
        exit(EXIT_GRADE_MACHINE);
    }
    return copy;
}

/* Appends a line to a malloc'ed text. */
static void append_line(char **text, const char *line)
{
    char *inert = copy_text(line);
    size_t old = strlen(*text), add = strlen(inert);
    char *longer = realloc(*text, old + add + 2);
    if (!longer) {
        fprintf(stderr, "results: out of memory\n");
        exit(EXIT_GRADE_MACHINE);
    }
    if (old)
        longer[old++] = '\n';
    memcpy(longer + old, inert, add + 1);
    free(inert);
    *text = longer;
}

static struct graded_test *find_test(struct grading *grading, const char *name)
{
    for (int t = 0; t < grading->count; t++)
        if (strcmp(grading->tests[t].name, name) == 0)
            return &grading->tests[t];
    return NULL;
}

static struct graded_test *add_test(struct grading *grading, const char *name)
{
    struct graded_test *found = find_test(grading, name);
    if (found)
        return found;
    struct graded_test *more = realloc(grading->tests, (size_t)(grading->count + 1) * sizeof *more);
    if (!more) {
        fprintf(stderr, "results: out of memory\n");
        exit(EXIT_GRADE_MACHINE);
    }
    grading->tests = more;
    struct graded_test *test = &more[grading->count++];
    *test = (struct graded_test){.name = copy_text(name), .state = STATE_NOT_RUN,
                                 .not_run = NOT_RUN_FILTERED, .output = copy_text("")};
    return test;
}

/* What each test's records say, before anything is decided. */
struct test_evidence {
    const char *outcome; /* NULL: never ran */
    int outcome_detail;
    bool reached_end, needs_gpu, not_asked, machine, cuda_error, optional;
};

static void add_problem(struct grading *grading, const char *format, const char *a, const char *b)
{
    if (grading->problem_count >= MAX_PROBLEMS)
        return;
    char line[512];
    snprintf(line, sizeof line, format, a, b);
    char **more = realloc(grading->problems, (size_t)(grading->problem_count + 1) * sizeof *more);
    if (!more)
        return;
    grading->problems = more;
    more[grading->problem_count++] = copy_text(line);
}

/* The first line of a text, at most 200 bytes. */
static void first_line(char *out, size_t size, const char *text)
{
    size_t length = strcspn(text, "\n");
    if (length >= size)
        length = size - 1;
    memcpy(out, text, length);
    out[length] = '\0';
}

/* The build's output without the kit's and the submission's paths and without the compiler's
 * warnings (with 5 architectures each comes 5 times and buries the error), at most
 * BUILD_OUTPUT_LINES lines; and the line to show in the class table: the first error. */
static char *cleaned_build_output(const struct grading_setup *setup, char *first_error,
                                  size_t first_error_size)
{
    char *cleaned = copy_text("");
    int lines = 0;
    bool in_warning = false;
    first_error[0] = '\0';
    for (const char *line = setup->build_output; *line;) {
        size_t length = strcspn(line, "\n");
        char *copy = malloc(length + 1);
        if (!copy)
            break;
        size_t out = 0;
        for (size_t i = 0; i < length;) {
            size_t skipped = 0;
            for (int p = 0; setup->strip_paths[p] && !skipped; p++) {
                size_t prefix = strlen(setup->strip_paths[p]);
                if (prefix && i + prefix <= length && memcmp(line + i, setup->strip_paths[p], prefix) == 0)
                    skipped = prefix;
            }
            if (skipped)
                i += skipped;
            else
                copy[out++] = line[i++];
        }
        copy[out] = '\0';
        /* A warning goes on over the indented lines under it (the source, a caret, a remark). */
        bool indented = copy[0] == ' ' || copy[0] == '\t';
        if (strstr(copy, "warning") && !indented)
            in_warning = true;
        else if (!indented && out)
            in_warning = false;
        if (out && !in_warning) {
            bool is_error = strstr(copy, "error") || strstr(copy, "undefined reference") ||
                            strstr(copy, " may not ");
            if (!first_error[0] && is_error && !strstr(copy, "collect2"))
                first_line(first_error, first_error_size, copy);
            if (lines++ < BUILD_OUTPUT_LINES)
                append_line(&cleaned, copy);
        }
        free(copy);
        line += length + (line[length] ? 1 : 0);
    }
    if (!first_error[0])
        first_line(first_error, first_error_size, cleaned);
    return cleaned;
}

static int read_records(struct grading *grading, const char *text, struct test_evidence **evidence,
                        char *error, size_t error_size)
{
    int line_number = 0, capacity = 0;
    for (const char *line = text; *line;) {
        size_t length = strcspn(line, "\n");
        line_number++;
        if (length == 0) {
            line += 1;
            continue;
        }
        struct record record;
        char why[128];
        if (!record_parse(line, length, &record, why, sizeof why)) {
            snprintf(error, error_size, "the grading record, line %d: %s", line_number, why);
            return -1;
        }
        /* Only the grader's runner lists tests: a record about any other test is ignored,
         * never a new test (nor points) of its own. */
        struct graded_test *test = record.kind == RECORD_LISTED || find_test(grading, record.fields[0])
                                       ? add_test(grading, record.fields[0])
                                       : NULL;
        if (!test) {
            record_free(&record);
            line += length + (line[length] ? 1 : 0);
            continue;
        }
        int index = (int)(test - grading->tests);
        if (grading->count > capacity) {
            capacity = grading->count * 2;
            struct test_evidence *more = realloc(*evidence, (size_t)capacity * sizeof *more);
            if (!more) {
                snprintf(error, error_size, "out of memory");
                return -1;
            }
            *evidence = more;
            memset(more + index, 0, (size_t)(capacity - index) * sizeof *more);
        }
        struct test_evidence *seen = &(*evidence)[index];
        const char *value = record.field_count > 1 ? record.fields[1] : "";
        switch (record.kind) {
        case RECORD_LISTED: seen->optional = strcmp(value, "optional") == 0; break;
        case RECORD_OUTCOME:
            seen->outcome = strcmp(value, "passed") == 0    ? "passed"
                            : strcmp(value, "skipped") == 0 ? "skipped"
                            : strcmp(value, "crashed") == 0 ? "crashed"
                            : strcmp(value, "timed-out") == 0 ? "timed-out"
                            : strcmp(value, "exited") == 0  ? "exited"
                                                            : "failed";
            seen->outcome_detail = record.field_count > 2 ? atoi(record.fields[2]) : 0;
            if (record.field_count > 3)
                test->seconds = atof(record.fields[3]);
            break;
        case RECORD_MESSAGE: append_line(&test->output, value); break;
        case RECORD_END: seen->reached_end = true; break;
        case RECORD_NEEDS_GPU:
            seen->needs_gpu = true;
            if (!grading->gpu_reason)
                grading->gpu_reason = copy_text(value);
            break;
        case RECORD_NOT_ASKED: seen->not_asked = true; break;
        case RECORD_MACHINE:
            seen->machine = true;
            append_line(&test->output, value);
            if (!grading->machine_problem)
                grading->machine_problem = copy_text(value);
            break;
        case RECORD_CUDA_ERROR:
            seen->cuda_error = true;
            append_line(&test->output, value);
            break;
        case RECORD_SPEED: {
            double mine = record.field_count > 3 ? atof(record.fields[2]) : 0;
            double reference = record.field_count > 3 ? atof(record.fields[3]) : 0;
            if (mine > 0 && reference > 0 && isfinite(mine) && isfinite(reference)) {
                struct timed_input *grown = realloc(grading->timed, (grading->timed_inputs + 1) *
                                                                        sizeof *grading->timed);
                if (!grown) {
                    snprintf(error, error_size, "out of memory");
                    record_free(&record);
                    return -1;
                }
                grading->timed = grown;
                grading->timed[grading->timed_inputs] = (struct timed_input){
                    copy_text(record.fields[0]), copy_text(value), mine, reference};
                grading->time_ratio += log(mine / reference);
                grading->timed_inputs++;
            }
            break;
        }
        case RECORD_KIND_COUNT: break;
        }
        record_free(&record);
        line += length + (line[length] ? 1 : 0);
    }
    return 0;
}

static void judge_test(struct graded_test *test, const struct test_evidence *seen,
                       bool filtered)
{
    if (!seen->outcome && filtered) {
        test->state = STATE_NOT_RUN; /* left out by --filter */
        test->not_run = NOT_RUN_FILTERED;
        return;
    }
    if (!seen->outcome) {
        /* Listed, never run: Criterion's runner stopped part way, which the code under test can
         * cause (it runs beside the runner's socket). Never a pass, nor the machine's fault. */
        test->state = STATE_FAILED;
        test->cause = CAUSE_CRASHED;
        append_line(&test->output, "no outcome: the grader's runner stopped before this test "
                                   "ended, while the code under test was running");
        return;
    }
    if (strcmp(seen->outcome, "skipped") == 0) {
        test->state = STATE_NOT_RUN;
        test->not_run = seen->machine     ? NOT_RUN_MACHINE
                        : seen->needs_gpu ? NOT_RUN_NEEDS_GPU
                        : seen->not_asked ? NOT_RUN_NOT_ASKED
                                          : NOT_RUN_MACHINE;
        if (!seen->machine && !seen->needs_gpu && !seen->not_asked)
            append_line(&test->output, "skipped without saying why (a grader defect)");
        return;
    }
    if (strcmp(seen->outcome, "passed") == 0 && seen->reached_end) {
        test->state = STATE_PASSED;
        free(test->output);
        test->output = copy_text("");
        return;
    }
    test->state = STATE_FAILED;
    char line[160];
    if (strcmp(seen->outcome, "crashed") == 0) {
        test->cause = CAUSE_CRASHED;
        snprintf(line, sizeof line, "the test process crashed (signal %d%s): on the host, a device "
                 "pointer used on the CPU or an array overrun", seen->outcome_detail,
                 seen->outcome_detail == 11 ? ", a segmentation fault" : "");
        append_line(&test->output, line);
    } else if (strcmp(seen->outcome, "timed-out") == 0) {
        test->cause = CAUSE_TIMED_OUT;
        append_line(&test->output, "the test ran past its time limit: a kernel or loop that never "
                                   "ends (a __syncthreads() some threads skip?), or one far too slow");
    } else if (seen->cuda_error) {
        test->cause = CAUSE_CUDA_ERROR;
    } else if (strcmp(seen->outcome, "exited") == 0) {
        test->cause = CAUSE_EXITED;
        snprintf(line, sizeof line, "the test process exited with status %d before the test "
                 "ended", seen->outcome_detail);
        append_line(&test->output, line);
    } else if (strcmp(seen->outcome, "passed") == 0) {
        test->cause = CAUSE_ENDED_EARLY;
        append_line(&test->output, "the test process ended before the test reached its end: the "
                                   "code under test ended the process (exit, abort, a signal)");
    } else {
        test->cause = CAUSE_WRONG;
    }
}

/* Points in hundredths, as every report writes them: the total is then the sum of the points
 * the reports show. */
static double in_cents(double points)
{
    return round(points * 100) / 100;
}

static void decide_points(struct grading *grading)
{
    const struct points_config *points = grading->setup.points;
    for (int t = 0; t < grading->count; t++) {
        struct graded_test *test = &grading->tests[t];
        test->in_maximum = !(test->state == STATE_NOT_RUN && (test->not_run == NOT_RUN_FILTERED ||
                                                              test->not_run == NOT_RUN_NOT_ASKED));
        test->max_score = test->in_maximum ? in_cents(points_for_test(points, grading->short_lab, test->name)) : 0;
        test->score = test->state == STATE_PASSED ? test->max_score : 0;
        grading->score += test->score;
        grading->max_score += test->max_score;
    }
    if (grading->timed_inputs)
        grading->time_ratio = exp(grading->time_ratio / grading->timed_inputs);
    grading->has_speed_rule = performance_rule(points, grading->short_lab, &grading->speed_max,
                                               &grading->speed_full_at);
    grading->speed_max = in_cents(grading->speed_max);
    if (!grading->has_speed_rule)
        return;
    char output[512];
    /* The speed's points are owed like a test's: unless the timed tests (suite speed, the only
       one ./grade times) were all left out, by --no-timing or --filter. */
    const struct graded_test *left_out = NULL;
    int timed_tests = 0, asked = 0;
    for (int t = 0; t < grading->count; t++) {
        const struct graded_test *test = &grading->tests[t];
        if (!is_timed(test))
            continue;
        timed_tests++;
        if (test->in_maximum)
            asked++;
        else if (!left_out)
            left_out = test;
    }
    grading->speed_in_maximum = timed_tests == 0 || asked > 0;
    if (!grading->speed_in_maximum) {
        char why[200];
        if (grading->setup.no_timing)
            snprintf(why, sizeof why, "--no-timing");
        else if (left_out->not_run == NOT_RUN_FILTERED)
            snprintf(why, sizeof why, "--filter left out the timed tests");
        else
            first_line(why, sizeof why, left_out->output[0] ? left_out->output : "the timed tests were not asked for");
        snprintf(output, sizeof output, "not timed (%s): its %.2f points are not in the maximum", why,
                 grading->speed_max);
        grading->speed_output = copy_text(output);
        return;
    }
    bool everything_ran = grading->failed == 0 && grading->needs_gpu == 0 && !grading->machine_problem;
    if (everything_ran && grading->time_ratio > 0) {
        grading->speed_points = in_cents(
            performance_points(grading->speed_max, grading->speed_full_at, grading->time_ratio));
        snprintf(output, sizeof output, "%.2fx the reference's time (geometric mean over %d "
                 "inputs); full points at or under %.2fx", grading->time_ratio,
                 grading->timed_inputs, grading->speed_full_at);
    } else {
        snprintf(output, sizeof output, "%s",
                 grading->failed ? "no speed points while a test fails"
                 : !everything_ran ? "not timed: not every test could run here"
                                   : "not timed (--no-timing or --filter)");
    }
    grading->speed_output = copy_text(output);
    grading->score += grading->speed_points;
    grading->max_score += grading->speed_max; /* (in the maximum: those left out returned above) */
}

/* A verdict about the code comes first: what the code got wrong stands whatever this machine
 * could not run. A machine without a GPU is no grading machine, so "not graded on a GPU" comes
 * before what else it lacks. */
static void decide_verdict(struct grading *grading)
{
    int ran = grading->passed + grading->failed;
    if (grading->setup.no_file) {
        grading->verdict = VERDICT_NO_FILE;
        grading->exit_code = EXIT_GRADE_NOT_PASSED;
    } else if (grading->setup.build_output) {
        grading->verdict = VERDICT_DOES_NOT_COMPILE;
        grading->exit_code = EXIT_GRADE_NOT_PASSED;
    } else if (grading->failed) {
        grading->verdict = VERDICT_FAILED;
        grading->exit_code = EXIT_GRADE_NOT_PASSED;
    } else if (grading->needs_gpu) {
        grading->verdict = VERDICT_NOT_GRADED_ON_GPU;
        grading->exit_code = EXIT_GRADE_NO_GPU;
    } else if (grading->machine_problem) {
        grading->verdict = VERDICT_MACHINE_BROKEN;
        grading->exit_code = EXIT_GRADE_MACHINE;
    } else if (ran <= 1) { /* the build alone is no test */
        grading->verdict = VERDICT_NO_TEST_RAN;
        grading->exit_code = EXIT_GRADE_USAGE;
    } else {
        grading->verdict = VERDICT_PASSED;
        grading->exit_code = EXIT_GRADE_PASSED;
    }
}

int grading_decide(const struct grading_setup *setup, const char *record_text,
                   struct grading *grading, char *error, size_t error_size)
{
    memset(grading, 0, sizeof *grading);
    grading->setup = *setup;
    snprintf(grading->short_lab, sizeof grading->short_lab, "%.*s",
             (int)strcspn(setup->lab, "-"), setup->lab);

    /* The build is a test like the others: it is listed first, and fails with the compiler's
     * first errors. */
    struct graded_test *build = add_test(grading, BUILD_TEST_NAME);
    char first_error[256] = "";
    if (setup->build_output || setup->no_file) {
        build->state = STATE_FAILED;
        build->cause = setup->no_file ? CAUSE_NO_FILE : CAUSE_BUILD;
        free(build->output);
        build->output = setup->no_file ? copy_text(setup->no_file)
                                       : cleaned_build_output(setup, first_error, sizeof first_error);
    } else {
        build->state = STATE_PASSED;
    }

    struct test_evidence *evidence = calloc(1, sizeof *evidence);
    if (!evidence || read_records(grading, record_text, &evidence, error, error_size) != 0) {
        free(evidence);
        return -1;
    }
    for (int t = 1; t < grading->count; t++) {
        struct graded_test *test = &grading->tests[t];
        if ((evidence[t].optional || (setup->no_timing && is_timed(test))) && !evidence[t].outcome) {
            test->state = STATE_NOT_RUN; /* asked for by nobody, or never built: not owed */
            test->not_run = NOT_RUN_NOT_ASKED;
        } else if (setup->build_output || setup->no_file) {
            test->state = STATE_NOT_RUN;
            test->not_run = setup->no_file ? NOT_RUN_NO_FILE : NOT_RUN_NOT_BUILT;
            free(test->output); /* the reports say why: not_run */
            test->output = copy_text("");
        } else {
            judge_test(test, &evidence[t], setup->filter != NULL);
            if (test->state == STATE_NOT_RUN && test->not_run == NOT_RUN_MACHINE &&
                !grading->machine_problem)
                grading->machine_problem = copy_text(test->output);
        }
    }
    free(evidence);

    for (int t = 0; t < grading->count; t++) {
        struct graded_test *test = &grading->tests[t];
        grading->seconds += test->seconds;
        if (test->state == STATE_PASSED)
            grading->passed++;
        else if (test->state == STATE_FAILED)
            grading->failed++, grading->causes[test->cause]++;
        else if (test->not_run != NOT_RUN_FILTERED && test->not_run != NOT_RUN_NOT_ASKED)
            grading->not_run++, grading->needs_gpu += test->not_run == NOT_RUN_NEEDS_GPU;
    }
    if (grading->count == 1 && !setup->build_output && !setup->no_file) {
        snprintf(error, error_size, "the grading record lists no test: the grader did not run");
        return -1;
    }
    decide_points(grading);
    decide_verdict(grading);

    if (setup->no_file)
        add_problem(grading, "%s%s", setup->no_file, "");
    else if (setup->build_output)
        add_problem(grading, "%s%s", first_error, "");
    if (grading->machine_problem)
        add_problem(grading, "grading machine: %s%s", grading->machine_problem, "");
    /* Before the failures: a failed grading whose GPU tests did not run is no grade yet, and a
     * table that cuts a row's problems short must still say so. */
    if (grading->needs_gpu && grading->gpu_reason)
        add_problem(grading, "GPU tests not run: %s%s", grading->gpu_reason, "");
    for (int t = 0; t < grading->count; t++) {
        const struct graded_test *test = &grading->tests[t];
        if (test->state != STATE_FAILED || test->cause == CAUSE_BUILD || test->cause == CAUSE_NO_FILE)
            continue;
        char line[240];
        first_line(line, sizeof line, test->output);
        add_problem(grading, "%s: %s", test->name, line[0] ? line : failure_cause_name(test->cause));
    }
    return 0;
}

void grading_free(struct grading *grading)
{
    for (int t = 0; t < grading->count; t++) {
        free(grading->tests[t].name);
        free(grading->tests[t].output);
    }
    for (int p = 0; p < grading->problem_count; p++)
        free(grading->problems[p]);
    free(grading->problems);
    free(grading->tests);
    free(grading->gpu_reason);
    free(grading->machine_problem);
    free(grading->speed_output);
    for (int i = 0; i < grading->timed_inputs; i++) {
        free(grading->timed[i].test);
        free(grading->timed[i].input);
    }
    free(grading->timed);
    memset(grading, 0, sizeof *grading);
}
