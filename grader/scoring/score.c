/* score: turns one grade's results into points, by a course's configuration. ./grade runs it
 * after the tests; an instructor can run it again on saved reports.
 *
 * usage: score --lab labN --config FILE --tap FILE [--perf FILE] [--json FILE]
 *              [--summary FILE --student NAME]
 *   --perf FILE     the times the speed tests recorded (your ms, the reference's ms per input)
 *   --json FILE     write Gradescope's results.json
 *   --summary FILE  append one tab-separated line for the class table:
 *                   student, passed, failed, time ratio, points, max points, failed tests
 * Exit status: 0, or 2 for a bad command line or an unreadable or malformed file. */
#define _POSIX_C_SOURCE 200809L
#include "points.h"
#include "results.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TESTS 512

static char *read_whole_file(const char *path)
{
    FILE *in = fopen(path, "rb");
    if (!in) {
        fprintf(stderr, "score: cannot open %s: %s\n", path, strerror(errno));
        return NULL;
    }
    size_t size = 0, capacity = 4096;
    char *text = malloc(capacity);
    size_t got;
    while (text && (got = fread(text + size, 1, capacity - size - 1, in)) > 0) {
        size += got;
        if (capacity - size < 1024) {
            char *bigger = realloc(text, capacity *= 2);
            if (!bigger)
                free(text);
            text = bigger;
        }
    }
    fclose(in);
    if (!text) {
        fprintf(stderr, "score: out of memory reading %s\n", path);
        return NULL;
    }
    text[size] = '\0';
    return text;
}

/* The geometric mean of your time over the reference's across the inputs timed; 0 if none. */
static double time_ratio(const char *perf_text)
{
    double log_sum = 0;
    int inputs = 0;
    for (const char *line = perf_text; line && *line;) {
        double mine = 0, reference = 0;
        const char *tab = strchr(line, '\t');
        if (tab && sscanf(tab + 1, "%lf\t%lf", &mine, &reference) == 2 && mine > 0 &&
            reference > 0) {
            log_sum += log(mine / reference);
            inputs++;
        }
        const char *end = strchr(line, '\n');
        line = end ? end + 1 : NULL;
    }
    return inputs ? exp(log_sum / inputs) : 0;
}

static void usage(void)
{
    fprintf(stderr, "usage: score --lab labN --config FILE --tap FILE [--perf FILE] [--json FILE] "
                    "[--summary FILE --student NAME]\n");
}

int main(int argc, char **argv)
{
    const char *lab = NULL, *config_path = NULL, *tap_path = NULL, *perf_path = NULL,
               *json_path = NULL, *summary_path = NULL, *student = NULL;
    for (int i = 1; i < argc; i++) {
        const char **slot = strcmp(argv[i], "--lab") == 0       ? &lab
                            : strcmp(argv[i], "--config") == 0  ? &config_path
                            : strcmp(argv[i], "--tap") == 0     ? &tap_path
                            : strcmp(argv[i], "--perf") == 0    ? &perf_path
                            : strcmp(argv[i], "--json") == 0    ? &json_path
                            : strcmp(argv[i], "--summary") == 0 ? &summary_path
                            : strcmp(argv[i], "--student") == 0 ? &student
                                                                : NULL;
        if (!slot || i + 1 == argc) {
            fprintf(stderr, "score: bad option or missing value: %s\n", argv[i]);
            usage();
            return 2;
        }
        *slot = argv[++i];
    }
    if (!lab || !config_path || !tap_path || (summary_path && !student)) {
        usage();
        return 2;
    }

    char *config_text = read_whole_file(config_path), *tap_text = read_whole_file(tap_path);
    char *perf_text = perf_path ? read_whole_file(perf_path) : NULL;
    if (!config_text || !tap_text || (perf_path && !perf_text))
        return 2;
    static struct points_config config;
    char error[256];
    if (points_config_parse(config_text, &config, error, sizeof error) != 0) {
        fprintf(stderr, "score: %s: %s\n", config_path, error);
        return 2;
    }
    static struct test_result tests[MAX_TESTS];
    int count = parse_tap_report(tap_text, tests, MAX_TESTS);
    if (count < 0) {
        fprintf(stderr, "score: %s is not a TAP report\n", tap_path);
        return 2;
    }
    if (count > MAX_TESTS)
        count = MAX_TESTS;

    double score = 0, max_score = 0;
    int passed = 0, failed = 0, kept = 0;
    char failed_names[512] = "";
    printf("\npoints (%s):\n", config_path);
    for (int t = 0; t < count; t++) {
        struct test_result *test = &tests[t];
        if (test->status == TEST_SKIPPED)
            continue; /* a test that did not run is neither earned nor lost */
        test->max_score = points_for_test(&config, lab, test->name);
        test->score = test->status == TEST_PASSED ? test->max_score : 0;
        score += test->score;
        max_score += test->max_score;
        if (test->status == TEST_PASSED) {
            passed++;
        } else {
            failed++;
            if (strlen(failed_names) + strlen(test->name) + 3 < sizeof failed_names)
                snprintf(failed_names + strlen(failed_names),
                         sizeof failed_names - strlen(failed_names), "%s%s",
                         failed_names[0] ? ", " : "", test->name);
        }
        printf("  %-60s %-6s %5.1f / %.1f\n", test->name,
               test->status == TEST_PASSED ? "passed" : "FAILED", test->score, test->max_score);
        tests[kept++] = *test;
    }

    /* Speed earns points only for a submission that is right everywhere. */
    double speed_max = 0, full_at = 0, ratio = perf_text ? time_ratio(perf_text) : 0;
    if (performance_rule(&config, lab, &speed_max, &full_at) && kept < MAX_TESTS) {
        struct test_result *speed = &tests[kept++];
        memset(speed, 0, sizeof *speed);
        snprintf(speed->name, sizeof speed->name, "performance (your time / the reference's)");
        speed->max_score = speed_max;
        if (failed == 0 && ratio > 0) {
            speed->score = performance_points(speed_max, full_at, ratio);
            speed->status = TEST_PASSED;
            snprintf(speed->output, sizeof speed->output,
                     "%.2fx the reference's time (geometric mean over the inputs timed); full "
                     "points at or under %.2fx",
                     ratio, full_at);
        } else {
            speed->status = TEST_FAILED;
            snprintf(speed->output, sizeof speed->output, "%s",
                     failed ? "no speed points while a correctness test fails"
                            : "not timed (--no-timing, or no GPU)");
        }
        score += speed->score;
        max_score += speed->max_score;
        printf("  %-60s %-6s %5.1f / %.1f   (%s)\n", speed->name,
               speed->status == TEST_PASSED ? "timed" : "-", speed->score, speed->max_score,
               speed->output);
    }
    printf("  %-60s        %5.1f / %.1f\n", "total", score, max_score);

    int status = 0;
    if (json_path) {
        FILE *out = fopen(json_path, "w");
        char output[256];
        snprintf(output, sizeof output, "%s: %d tests passed, %d failed; %.1f of %.1f points", lab,
                 passed, failed, score, max_score);
        if (out) {
            write_gradescope_results(out, score, output, tests, kept);
            status = fclose(out) == 0 ? 0 : 2;
        } else {
            status = 2;
        }
        if (status)
            fprintf(stderr, "score: cannot write %s\n", json_path);
    }
    if (summary_path) {
        FILE *out = fopen(summary_path, "a");
        if (out) {
            fprintf(out, "%s\t%d\t%d\t%.3f\t%.2f\t%.2f\t%s\n", student, passed, failed, ratio,
                    score, max_score, failed_names);
            fclose(out);
        } else {
            fprintf(stderr, "score: cannot append to %s\n", summary_path);
            status = 2;
        }
    }
    free(config_text);
    free(tap_text);
    free(perf_text);
    return status;
}
