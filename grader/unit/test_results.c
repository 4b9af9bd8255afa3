/* The results model and its reports, and the points configuration: what instructors trust. */
#define _POSIX_C_SOURCE 200809L
#include "points.h"
#include "model.h"
#include "records.h"
#include "reports.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const sample_config =
    "# a course\n"
    "*    test speed/*        0\n"
    "lab5 test private_shared/* 2   # the point of the lab\n"
    "*    test *              1\n"
    "\n"
    "lab5 performance 20 1.2\n";

Test(points_config, first_matching_rule_decides)
{
    static struct points_config config;
    char error[256] = "";
    cr_assert_eq(points_config_parse(sample_config, &config, error, sizeof error), 0, "%s", error);
    cr_expect_eq(config.count, 4);
    cr_expect_float_eq(points_for_test(&config, "lab5", "private_shared/bytes_257"), 2.0, 1e-12);
    cr_expect_float_eq(points_for_test(&config, "lab5", "private_global/bytes_257"), 1.0, 1e-12);
    cr_expect_float_eq(points_for_test(&config, "lab5", "speed/shared_against_lab4"), 0.0, 1e-12);
    cr_expect_float_eq(points_for_test(&config, "lab4", "private_shared/x"), 1.0, 1e-12,
                       "a lab5 rule does not apply to lab4");
    double points = 0, full_at = 0;
    cr_expect(performance_rule(&config, "lab5", &points, &full_at));
    cr_expect(points == 20 && full_at == 1.2);
    cr_expect_not(performance_rule(&config, "lab4", &points, &full_at));
}

Test(points_config, says_which_line_is_wrong)
{
    static struct points_config config;
    char error[256] = "";
    const char *misspelled = "lab5 test * 1\nlab5 tset * 1\n";
    cr_expect_eq(points_config_parse(misspelled, &config, error, sizeof error), -1);
    cr_expect(strstr(error, "line 2:") != NULL, "got: %s", error);
    cr_expect_eq(points_config_parse("lab5 test * -1\n", &config, error, sizeof error), -1);
    cr_expect_eq(points_config_parse("lab5 performance 10 0\n", &config, error, sizeof error), -1);
    cr_expect_eq(points_config_parse("lab5 test * inf\n", &config, error, sizeof error), -1,
                 "infinite points would write \"score\": inf, which is no JSON");
    cr_expect_eq(points_config_parse("lab5 test * nan\n", &config, error, sizeof error), -1);
    cr_expect_eq(points_config_parse("fivelab test * 1\n", &config, error, sizeof error), -1);
    cr_expect(strstr(error, "expected a lab") != NULL, "got: %s", error);
    cr_expect_eq(points_config_parse("lab5 test * 1 extra\n", &config, error, sizeof error), -1);
    cr_expect_eq(points_config_parse("# only comments\n\n", &config, error, sizeof error), 0);
    cr_expect_eq(config.count, 0);
}

Test(points_config, the_shipped_default_parses)
{
    FILE *in = fopen("grader/points.conf", "r");
    cr_assert(in, "grader/points.conf is missing");
    static char text[16384];
    size_t length = fread(text, 1, sizeof text - 1, in);
    fclose(in);
    text[length] = '\0';
    static struct points_config config;
    char error[256] = "";
    cr_expect_eq(points_config_parse(text, &config, error, sizeof error), 0, "%s", error);
    /* Every lab of the tree, whatever their number: a lab added later needs no edit here. */
    DIR *labs = opendir("labs");
    cr_assert(labs, "no labs/ folder");
    int count = 0;
    for (struct dirent *entry; (entry = readdir(labs));) {
        char name[16];
        if (sscanf(entry->d_name, "lab%15[0-9]", name + 3) != 1)
            continue;
        memcpy(name, "lab", 3);
        double points, full_at;
        cr_expect(performance_rule(&config, name, &points, &full_at), "no speed rule for %s", name);
        count++;
    }
    closedir(labs);
    cr_expect_geq(count, 8);
}

Test(performance_points, full_then_proportionally_less)
{
    cr_expect_float_eq(performance_points(20, 1.2, 0.5), 20.0, 1e-12);
    cr_expect_float_eq(performance_points(20, 1.2, 1.2), 20.0, 1e-12);
    cr_expect_float_eq(performance_points(20, 1.2, 2.4), 10.0, 1e-12);
    cr_expect_float_eq(performance_points(20, 1.2, 0.0), 0.0, 1e-12);
}

/* A record file as the runner and the test processes write it. */
static char *record_text(const char *const lines[][4], int count)
{
    char path[] = "/tmp/records-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    close(fd);
    for (int l = 0; l < count; l++) {
        int fields = 0;
        while (fields < 2 && lines[l][2 + fields])
            fields++;
        cr_assert(record_append_to(path, RECORD_LISTED, lines[l][1], 0, NULL)); /* as the runner does */
        for (int k = 0; k < RECORD_KIND_COUNT; k++)
            if (strcmp(lines[l][0], record_kind_name((enum record_kind)k)) == 0)
                cr_assert(record_append_to(path, (enum record_kind)k, lines[l][1], fields,
                                           &lines[l][2]));
    }
    FILE *in = fopen(path, "r");
    static char text[65536];
    size_t length = fread(text, 1, sizeof text - 1, in);
    text[length] = '\0';
    fclose(in);
    unlink(path);
    return text;
}

static struct points_config *lab5_points(void)
{
    static struct points_config config;
    char error[256];
    cr_assert_eq(points_config_parse(sample_config, &config, error, sizeof error), 0);
    return &config;
}

static void decide(struct grading *grading, const char *text, const char *build_output)
{
    struct grading_setup setup = {.lab = "lab5-privatized", .points = lab5_points(),
                                  .build_output = build_output,
                                  .strip_paths = {"/home/kit/", NULL}};
    char error[256] = "";
    cr_assert_eq(grading_decide(&setup, text, grading, error, sizeof error), 0, "%s", error);
}

static const struct graded_test *find(const struct grading *grading, const char *name)
{
    for (int t = 0; t < grading->count; t++)
        if (strcmp(grading->tests[t].name, name) == 0)
            return &grading->tests[t];
    cr_assert_fail("no test %s", name);
    return NULL;
}

Test(records, fields_with_tabs_newlines_and_backslashes_come_back_whole)
{
    const char *lines[][4] = {{"message", "s/t", "a\tb\nc\\d \\n", NULL}};
    const char *text = strstr(record_text(lines, 1), "message"); /* after its listing */
    cr_expect_str_eq(text, "message\ts/t\ta\\tb\\nc\\\\d \\\\n\n");
    struct record record;
    char error[64];
    cr_assert(record_parse(text, strlen(text) - 1, &record, error, sizeof error));
    cr_expect_eq(record.kind, RECORD_MESSAGE);
    cr_expect_str_eq(record.fields[1], "a\tb\nc\\d \\n");
    record_free(&record);
    cr_expect_not(record_parse("nonsense\ts/t", 12, &record, error, sizeof error));
    cr_expect_not(record_parse("end", 3, &record, error, sizeof error));
}

Test(grading, a_pass_needs_the_end_of_the_test)
{
    const char *lines[][4] = {
        {"listed", "private_shared/bytes_257", NULL, NULL},
        {"listed", "private_shared/one_letter", NULL, NULL},
        {"outcome", "private_shared/bytes_257", "passed", "0"},
        {"end", "private_shared/bytes_257", NULL, NULL},
        /* Criterion saw exit status 0, but the body never reached its end: exit(0) */
        {"outcome", "private_shared/one_letter", "passed", "0"},
    };
    static struct grading grading;
    decide(&grading, record_text(lines, 5), NULL);
    cr_expect_eq(find(&grading, "private_shared/bytes_257")->state, STATE_PASSED);
    const struct graded_test *early = find(&grading, "private_shared/one_letter");
    cr_expect_eq(early->state, STATE_FAILED);
    cr_expect_eq(early->cause, CAUSE_ENDED_EARLY);
    cr_expect_eq(grading.verdict, VERDICT_FAILED);
    cr_expect_eq(grading.exit_code, 1);
    grading_free(&grading);
}

Test(grading, crashes_hangs_and_cuda_errors_are_named)
{
    const char *lines[][4] = {
        {"outcome", "a/crash", "crashed", "11"},
        {"outcome", "a/hang", "timed-out", ""},
        {"cuda-error", "a/cuda", "lab5.cu:12: cudaMalloc failed: out of memory", NULL},
        {"outcome", "a/cuda", "exited", "1"},
        {"outcome", "a/exit", "exited", "3"},
    };
    static struct grading grading;
    decide(&grading, record_text(lines, 5), NULL);
    cr_expect_eq(find(&grading, "a/crash")->cause, CAUSE_CRASHED);
    cr_expect(strstr(find(&grading, "a/crash")->output, "signal 11") != NULL);
    cr_expect_eq(find(&grading, "a/hang")->cause, CAUSE_TIMED_OUT);
    cr_expect_eq(find(&grading, "a/cuda")->cause, CAUSE_CUDA_ERROR);
    cr_expect(strstr(find(&grading, "a/cuda")->output, "cudaMalloc failed") != NULL);
    cr_expect_eq(find(&grading, "a/exit")->cause, CAUSE_EXITED);
    cr_expect_eq(grading.failed, 4);
    grading_free(&grading);
}

Test(grading, no_gpu_keeps_the_maximum_and_is_no_pass)
{
    const char *lines[][4] = {
        {"listed", "private_shared/bytes_257", NULL, NULL},
        {"listed", "technique/uses_shared", NULL, NULL},
        {"listed", "private_shared/your_input_file", NULL, NULL},
        {"needs-gpu", "private_shared/bytes_257", "no CUDA GPU", NULL},
        {"outcome", "private_shared/bytes_257", "skipped", ""},
        {"outcome", "technique/uses_shared", "passed", ""},
        {"end", "technique/uses_shared", NULL, NULL},
        {"not-asked", "private_shared/your_input_file", "no --input FILE given", NULL},
        {"outcome", "private_shared/your_input_file", "skipped", ""},
    };
    static struct grading grading;
    decide(&grading, record_text(lines, 9), NULL);
    cr_expect_eq(grading.verdict, VERDICT_NOT_GRADED_ON_GPU);
    cr_expect_eq(grading.exit_code, 3);
    /* the maximum: the build (0 under "*" ... 1), both tests that could run or could not, and
       the speed; the optional --input test is not asked for and stays out */
    cr_expect_float_eq(grading.max_score, 1 + 2 + 1 + 20, 1e-9, "got %f", grading.max_score);
    cr_expect_float_eq(grading.score, 1 + 1, 1e-9, "got %f", grading.score);
    cr_expect_float_eq(grading.speed_points, 0, 1e-12);
    grading_free(&grading);
}

Test(grading, a_machine_that_cannot_run_a_test_is_broken_not_lenient)
{
    const char *lines[][4] = {
        {"outcome", "private_shared/bytes_257", "passed", ""},
        {"end", "private_shared/bytes_257", NULL, NULL},
        {"machine", "technique/uses_shared", "cuobjdump is not installed here", NULL},
        {"outcome", "technique/uses_shared", "skipped", ""},
    };
    static struct grading grading;
    decide(&grading, record_text(lines, 4), NULL);
    cr_expect_eq(grading.verdict, VERDICT_MACHINE_BROKEN);
    cr_expect_eq(grading.exit_code, 4);
    cr_expect_float_eq(grading.max_score, 1 + 2 + 1 + 20, 1e-9, "the technique test stays in the maximum");
    grading_free(&grading);
}

Test(grading, speed_points_from_the_geometric_mean_of_the_ratios)
{
    const char *lines[][4] = {
        {"outcome", "speed/x", "passed", ""},
        {"end", "speed/x", NULL, NULL},
        {"speed", "speed/x", "a", NULL},
    };
    static struct grading grading;
    char *text = record_text(lines, 2);
    /* two inputs: 2x and 0.5x the reference's time: the geometric mean is 1x */
    strcat(text, "speed\tspeed/x\ttext one\t2.0\t1.0\nspeed\tspeed/x\ttext two\t1.0\t2.0\n");
    decide(&grading, text, NULL);
    cr_expect_float_eq(grading.time_ratio, 1.0, 1e-9);
    cr_expect_float_eq(grading.speed_points, 20, 1e-9);
    cr_expect_eq(grading.verdict, VERDICT_PASSED);
    /* each input's two times reach summary.json, for tools that compare gradings */
    char *json = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&json, &size);
    cr_assert_eq(write_summary_json(out, &grading), 0);
    cr_expect(strstr(json, "{\"test\": \"speed/x\", \"input\": \"text one\", \"yours_ms\": 2, "
                           "\"reference_ms\": 1}") != NULL, "%s", json);
    cr_expect(strstr(json, "\"input\": \"text two\", \"yours_ms\": 1, \"reference_ms\": 2}") != NULL,
              "%s", json);
    fclose(out);
    free(json);
    /* A ratio far below the reference's is a number in the reports, never 0.000 (which the
     * class table's reader refuses as no ratio). */
    grading.time_ratio = 1e-6;
    json = NULL;
    out = open_memstream(&json, &size);
    cr_assert_eq(write_summary_json(out, &grading), 0);
    cr_assert_eq(write_gradescope_json(out, &grading), 0);
    fclose(out);
    cr_expect(strstr(json, "\"time_ratio\": 1e-06") != NULL, "%s", json);
    cr_expect(strstr(json, "\"value\": 1e-06") != NULL, "%s", json);
    free(json);
    grading_free(&grading);
}

Test(grading, a_failed_build_lists_every_test_and_keeps_the_maximum)
{
    const char *lines[][4] = {
        {"listed", "private_shared/bytes_257", NULL, NULL},
        {"listed", "technique/uses_shared", NULL, NULL},
    };
    static struct grading grading;
    decide(&grading, record_text(lines, 2),
           "/home/kit/labs/lab5-privatized/lab5.cu(12): warning: unused\n"
           "/home/kit/labs/lab5-privatized/lab5.cu(14): error: identifier \"retrun\" is undefined\n");
    cr_expect_eq(grading.verdict, VERDICT_DOES_NOT_COMPILE);
    cr_expect_eq(grading.exit_code, 1);
    const struct graded_test *build = find(&grading, "build/compiles");
    cr_expect_eq(build->state, STATE_FAILED);
    cr_expect(strstr(build->output, "/home/kit") == NULL, "paths stripped: %s", build->output);
    cr_expect_str_eq(grading.problems[0], "labs/lab5-privatized/lab5.cu(14): error: identifier \"retrun\" is undefined");
    cr_expect_eq(find(&grading, "technique/uses_shared")->not_run, NOT_RUN_NOT_BUILT);
    cr_expect_float_eq(grading.max_score, 1 + 2 + 1 + 20, 1e-9);
    cr_expect_float_eq(grading.score, 0, 1e-9);
    grading_free(&grading);
}

Test(grading, no_file_is_a_result_with_every_test_listed_and_the_maximum_kept)
{
    const char *lines[][4] = {
        {"listed", "private_shared/bytes_257", NULL, NULL},
        {"listed", "technique/uses_shared", NULL, NULL},
    };
    static struct grading grading;
    struct grading_setup setup = {.lab = "lab5-privatized", .points = lab5_points(),
                                  .no_file = "no file 'lab5.cu' to grade: hand in lab5.cu"};
    char error[256] = "";
    cr_assert_eq(grading_decide(&setup, record_text(lines, 2), &grading, error, sizeof error), 0,
                 "%s", error);
    cr_expect_eq(grading.verdict, VERDICT_NO_FILE);
    cr_expect_eq(grading.exit_code, 1);
    cr_expect_eq(find(&grading, "build/compiles")->cause, CAUSE_NO_FILE);
    cr_expect_eq(find(&grading, "technique/uses_shared")->not_run, NOT_RUN_NO_FILE);
    cr_expect_float_eq(grading.max_score, 1 + 2 + 1 + 20, 1e-9);
    cr_expect_float_eq(grading.score, 0, 1e-9);
    grading_free(&grading);
}

Test(grading, records_of_tests_never_listed_are_ignored)
{
    static struct grading grading;
    /* forged: an outcome and an end for a test the grader does not have */
    decide(&grading, "listed\ta/real\noutcome\ta/real\tpassed\t\t0\nend\ta/real\n"
                     "outcome\ta/forged\tpassed\t\t0\nend\ta/forged\n", NULL);
    cr_expect_eq(grading.count, 2, "build/compiles and a/real only");
    cr_expect_float_eq(grading.max_score, 1 + 1 + 20, 1e-9);
    grading_free(&grading);
}

Test(grading, nothing_run_is_no_pass)
{
    const char *lines[][4] = {{"listed", "private_shared/bytes_257", NULL, NULL}};
    static struct grading grading;
    /* a --filter that matched nothing: the command line's fault */
    struct grading_setup setup = {.lab = "lab5-privatized", .points = lab5_points(), .filter = "x/*"};
    char error[256] = "";
    cr_assert_eq(grading_decide(&setup, record_text(lines, 1), &grading, error, sizeof error), 0);
    cr_expect_eq(grading.verdict, VERDICT_NO_TEST_RAN);
    cr_expect_eq(grading.exit_code, 2);
    grading_free(&grading);
    /* no filter, and a listed test without an outcome: the runner stopped; never a pass */
    decide(&grading, record_text(lines, 1), NULL);
    cr_expect_eq(grading.verdict, VERDICT_FAILED);
    cr_expect_eq(find(&grading, "private_shared/bytes_257")->cause, CAUSE_CRASHED);
    grading_free(&grading);
}

Test(reports, json_strings_are_always_valid)
{
    char *json = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&json, &size);
    write_json_string(out, "a \"q\" \\ \n\t\x01 \xC3\xA9 \xFF\xC3 end");
    fclose(out);
    cr_expect_str_eq(json, "\"a \\\"q\\\" \\\\ \\n\\t\\u0001 \xC3\xA9 \\ufffd\\ufffd end\"");
    free(json);
}

Test(reports, xml_text_is_always_well_formed)
{
    char *xml = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&xml, &size);
    write_xml_text(out, "<a href=\"x\">&</a>\x01\xFF\n");
    fclose(out);
    cr_expect_str_eq(xml, "&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;??&#10;");
    free(xml);
}

/* A report written to memory, for the tests below. */
typedef int report_writer(FILE *, const struct grading *);
static char *written(report_writer *writer, const struct grading *grading)
{
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    cr_assert(out);
    cr_assert_eq(writer(out, grading), 0);
    fclose(out);
    return text;
}

static int terminal_summary(FILE *out, const struct grading *grading)
{
    return write_terminal_summary(out, grading, "points.conf");
}

/* A grading without a GPU: a test that could not run, one worth 0 that could not run either,
 * one that ran and passed. */
static void decide_without_a_gpu(struct grading *grading)
{
    const char *lines[][4] = {
        {"needs-gpu", "private_shared/bytes_257", "no CUDA GPU", NULL},
        {"outcome", "private_shared/bytes_257", "skipped", ""},
        {"needs-gpu", "speed/x", "no CUDA GPU", NULL},
        {"outcome", "speed/x", "skipped", ""},
        {"outcome", "technique/uses_shared", "passed", ""},
        {"end", "technique/uses_shared", NULL, NULL},
    };
    decide(grading, record_text(lines, 6), NULL);
    cr_assert_eq(grading->verdict, VERDICT_NOT_GRADED_ON_GPU);
}

Test(reports, tap_never_calls_a_test_that_could_not_run_here_ok)
{
    static struct grading grading;
    decide_without_a_gpu(&grading);
    char *tap = written(write_tap, &grading);
    /* prove and tap.py count "ok ... # SKIP" and "not ok ... # TODO" as passing */
    cr_expect(strstr(tap, "# SKIP") == NULL && strstr(tap, "# skip") == NULL, "%s", tap);
    cr_expect(strstr(tap, "# TODO") == NULL && strstr(tap, "# todo") == NULL, "%s", tap);
    cr_expect(strstr(tap, "\nnot ok 2 - private_shared/bytes_257\n") != NULL, "%s", tap);
    cr_expect(strstr(tap, "\nnot ok 3 - speed/x\n") != NULL, "a test worth 0 too: %s", tap);
    cr_expect(strstr(tap, "\nok 4 - technique/uses_shared\n") != NULL, "%s", tap);
    free(tap);
    grading_free(&grading);
}

Test(reports, junit_calls_a_test_that_could_not_run_here_an_error)
{
    static struct grading grading;
    decide_without_a_gpu(&grading);
    char *xml = written(write_junit_xml, &grading);
    cr_expect(strstr(xml, "<skipped") == NULL, "%s", xml);
    cr_expect(strstr(xml, "failures=\"0\" errors=\"2\" skipped=\"0\"") != NULL, "%s", xml);
    const char *test = strstr(xml, "name=\"private_shared/bytes_257\"");
    cr_assert(test, "%s", xml);
    cr_expect(strncmp(strstr(test, "\n      <") + 7, "<error message=\"not run: needs a GPU", 36) == 0, "%s", xml);
    free(xml);
    grading_free(&grading);
}

Test(reports, gradescope_fails_a_test_that_could_not_run_here)
{
    static struct grading grading;
    decide_without_a_gpu(&grading);
    char *json = written(write_gradescope_json, &grading);
    /* Gradescope calls a test without a status passed when its score equals its maximum: 0 of
       0 for a test worth nothing */
    const char *speed = strstr(json, "\"name\": \"speed/x\"");
    cr_assert(speed, "%s", json);
    cr_expect(strstr(speed, "\"status\": \"failed\"") != NULL &&
              strstr(speed, "\"status\": \"failed\"") < strchr(speed, '}'), "%s", json);
    const char *bytes = strstr(json, "\"name\": \"private_shared/bytes_257\"");
    cr_expect(strstr(bytes, "\"status\": \"failed\"") < strchr(bytes, '}'), "%s", json);
    free(json);
    grading_free(&grading);
}

Test(grading, no_timing_takes_the_speed_points_out_of_the_maximum_and_says_so)
{
    const char *lines[][4] = {
        {"outcome", "private_shared/bytes_257", "passed", ""},
        {"end", "private_shared/bytes_257", NULL, NULL},
        {"not-asked", "speed/x", "timing skipped: --no-timing was given", NULL},
        {"message", "speed/x", "timing skipped: --no-timing was given", NULL},
        {"outcome", "speed/x", "skipped", ""},
    };
    static struct grading grading;
    decide(&grading, record_text(lines, 5), NULL);
    cr_expect_eq(grading.verdict, VERDICT_PASSED);
    /* the build (1) and the test (2): a perfect lab gets its whole maximum */
    cr_expect_float_eq(grading.max_score, 1 + 2, 1e-9, "got %f", grading.max_score);
    cr_expect_float_eq(grading.score, grading.max_score, 1e-9);
    report_writer *writers[] = {terminal_summary, write_gradescope_json, write_tap, write_junit_xml,
                                write_summary_json};
    for (size_t w = 0; w < sizeof writers / sizeof writers[0]; w++) {
        char *text = written(writers[w], &grading);
        cr_expect(strstr(text, "--no-timing") && strstr(text, "not in the maximum"),
                  "report %zu does not say why the speed points are out of the maximum: %s", w, text);
        free(text);
    }
    grading_free(&grading);
}

Test(grading, speed_tests_left_out_by_the_filter_take_their_points_out_too)
{
    static struct grading grading;
    struct grading_setup setup = {.lab = "lab5-privatized", .points = lab5_points(), .filter = "private_shared/*"};
    char error[256] = "";
    const char *lines[][4] = {
        {"outcome", "private_shared/bytes_257", "passed", ""},
        {"end", "private_shared/bytes_257", NULL, NULL},
        {"listed", "speed/x", NULL, NULL},
    };
    cr_assert_eq(grading_decide(&setup, record_text(lines, 3), &grading, error, sizeof error), 0);
    cr_expect_float_eq(grading.max_score, 1 + 2, 1e-9, "got %f", grading.max_score);
    grading_free(&grading);
}

Test(points_config, refuses_points_past_the_bound)
{
    static struct points_config config;
    char error[256] = "";
    cr_expect_eq(points_config_parse("lab5 test * 1e10\n", &config, error, sizeof error), -1);
    cr_expect(strstr(error, "line 1:") && strstr(error, "1000"), "got: %s", error);
    cr_expect_eq(points_config_parse("lab5 performance 1e10 1.2\n", &config, error, sizeof error), -1);
    cr_expect(strstr(error, "1000"), "got: %s", error);
    cr_expect_eq(points_config_parse("lab5 test * 1000\nlab5 performance 1000 1.2\n", &config, error,
                                     sizeof error), 0, "%s", error);
}

Test(points_config, knows_a_file_that_gives_a_lab_nothing)
{
    static struct points_config config;
    char error[256] = "";
    cr_assert_eq(points_config_parse("lab5 test * 1\nlab4 test * 0\n*  performance 0 1.2\n", &config,
                                     error, sizeof error), 0);
    cr_expect(points_config_gives_points(&config, "lab5"));
    cr_expect_not(points_config_gives_points(&config, "lab4"), "only a rule of 0 points for lab4");
    cr_expect_not(points_config_gives_points(&config, "lab6"), "no rule for lab6");
    cr_assert_eq(points_config_parse("*  test technique/* 5\n", &config, error, sizeof error), 0);
    cr_expect(points_config_gives_points(&config, "lab6"));
}

Test(reports, a_students_text_is_inert_in_the_terminal_and_in_tap)
{
    /* an escape code that clears the screen, a carriage return, an 8-bit CSI (C1), a byte that
       is not UTF-8, a right-to-left override, a forged line */
    const char *hostile = "\x1b[2J\rgrade: lab5: PASSED \xC2\x9B" "31m \xFF \xE2\x80\xAE" "desrever\x07 error";
    const char *lines[][4] = {
        {"message", "private_shared/bytes_257", hostile, NULL},
        {"outcome", "private_shared/bytes_257", "failed", ""},
    };
    static struct grading failed, not_built;
    decide(&failed, record_text(lines, 2), NULL);
    decide(&not_built, record_text(lines, 0), hostile); /* the compiler quotes the source */
    const struct { report_writer *writer; const struct grading *grading; } reports[] = {
        {write_tap, &failed}, {write_tap, &not_built}, {terminal_summary, &not_built}};
    for (size_t r = 0; r < sizeof reports / sizeof reports[0]; r++) {
        char *text = written(reports[r].writer, reports[r].grading);
        for (const char *bad = "\x1b\r\x07\xFF"; *bad; bad++)
            cr_expect(strchr(text, *bad) == NULL, "report %zu holds byte 0x%02x: %s", r, (unsigned char)*bad, text);
        cr_expect(strstr(text, "\xC2\x9B") == NULL && strstr(text, "\xE2\x80\xAE") == NULL,
                  "report %zu holds a C1 control or a bidirectional override", r);
        cr_expect(strstr(text, "\\x1b[2J\\x0dgrade: lab5: PASSED") != NULL, "report %zu, escaped visibly: %s", r, text);
        free(text);
    }
    grading_free(&failed);
    grading_free(&not_built);
}

Test(reports, json_and_xml_keep_display_controls_out_of_the_file)
{
    char *json = NULL, *xml = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&json, &size);
    write_json_string(out, "a\xC2\x9B" "31m \xE2\x80\xAE" "b");
    fclose(out);
    cr_expect_str_eq(json, "\"a\\u009b31m \\u202eb\"");
    out = open_memstream(&xml, &size);
    write_xml_text(out, "a\xC2\x9B" "31m \xE2\x80\xAE" "b");
    fclose(out);
    cr_expect_str_eq(xml, "a&#x9b;31m &#x202e;b");
    free(json);
    free(xml);
}

Test(reports, a_stream_keeps_colors_and_waits_for_an_unfinished_character)
{
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    const char data[] = "\x1b[1;32m[PASS]\x1b[0m \x1b[2J\x00!";
    write_inert_bytes(out, data, sizeof data - 1, true, true);
    fclose(out);
    cr_expect_str_eq(text, "\x1b[1;32m[PASS]\x1b[0m \\x1b[2J\\x00!", "colors kept, the rest inert");
    free(text);
    cr_expect_eq(inert_complete_part("ab\xC3", 3), 2, "an unfinished UTF-8 character waits");
    cr_expect_eq(inert_complete_part("ab\xE2\x80", 4), 2);
    cr_expect_eq(inert_complete_part("ab\xC3\xA9", 4), 4);
    cr_expect_eq(inert_complete_part("ab\x1b[3", 5), 2, "an unfinished color code waits");
    cr_expect_eq(inert_complete_part("ab\x1b[3m", 6), 6);
    cr_expect_eq(inert_complete_part("ab\xFF", 3), 3, "a byte that is no lead goes now");
}

Test(grading, no_timing_gives_every_grading_the_same_maximum_built_or_not)
{
    const char *lines[][4] = {
        {"listed", "private_shared/bytes_257", NULL, NULL},
        {"listed", "speed/x", NULL, NULL},
    };
    static struct grading not_built, no_file;
    struct grading_setup setup = {.lab = "lab5-privatized", .points = lab5_points(), .no_timing = true,
                                  .build_output = "lab5.cu(3): error: expected a \";\""};
    char error[256] = "";
    cr_assert_eq(grading_decide(&setup, record_text(lines, 2), &not_built, error, sizeof error), 0, "%s", error);
    setup.build_output = NULL;
    setup.no_file = "no file 'lab5.cu' to grade";
    cr_assert_eq(grading_decide(&setup, record_text(lines, 2), &no_file, error, sizeof error), 0, "%s", error);
    /* as a graded perfect lab under --no-timing: the build (1) and the test (2), no speed */
    cr_expect_float_eq(not_built.max_score, 1 + 2, 1e-9, "got %f", not_built.max_score);
    cr_expect_float_eq(no_file.max_score, 1 + 2, 1e-9, "got %f", no_file.max_score);
    cr_expect(strstr(not_built.speed_output, "--no-timing") != NULL, "%s", not_built.speed_output);
    grading_free(&not_built);
    grading_free(&no_file);
}

/* Whether a text is well-formed UTF-8 with no control character but newline and tab. */
static bool inert_text(const char *text)
{
    for (const unsigned char *at = (const unsigned char *)text; *at; at++) {
        if ((*at < 0x20 && *at != '\n' && *at != '\t') || *at == 0x7F)
            return false;
        int length = *at < 0x80 ? 1 : *at >= 0xC2 && *at <= 0xDF ? 2 : *at >= 0xE0 && *at <= 0xEF ? 3
                                                                 : *at >= 0xF0 && *at <= 0xF4 ? 4 : 0;
        if (length == 0 || (length == 2 && *at == 0xC2 && at[1] < 0xA0))
            return false;
        for (int i = 1; i < length; i++)
            if ((at[i] & 0xC0) != 0x80)
                return false;
        at += length - 1;
    }
    return true;
}

Test(reports, a_students_text_reaches_no_report_raw)
{
    const char *lines[][4] = {{"listed", "private_shared/bytes_257", NULL, NULL}};
    static struct grading grading;
    /* A compiler's error quoting a line with a terminal's escape sequences, a C1 control and
     * bytes that are not UTF-8: it would move the cursor and write a fake line. */
    decide(&grading, record_text(lines, 1),
           "/home/kit/lab5.cu(1): error: #error \x1b[1A\x1b[2K\rpassed \xC2\x9B\xFF\xFE \xC3\xA9\n");
    cr_expect(inert_text(grading.problems[0]), "problem: %s", grading.problems[0]);
    cr_expect(strstr(grading.problems[0], "\xC3\xA9") != NULL, "a real character stays: %s", grading.problems[0]);
    char *tap = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&tap, &size);
    cr_assert_eq(write_tap(out, &grading), 0);
    fclose(out);
    cr_expect(inert_text(tap), "TAP: %s", tap);
    free(tap);
    grading_free(&grading);
}

/* A test that failed on a machine without a GPU: the code is wrong, but the GPU tests never ran,
 * so its points are no grade. Every report says so, the problems first of all (a class table
 * cuts a row's problems short), and the class's gradebook hands on nothing for it
 * (grader/class/table.py, grade_to_hand_on: make test's class part). */
Test(grading, a_failure_with_the_gpu_tests_not_run_says_its_points_are_no_grade)
{
    const char *lines[][4] = {
        {"needs-gpu", "private_shared/bytes_257", "no CUDA GPU", NULL},
        {"outcome", "private_shared/bytes_257", "skipped", ""},
        {"message", "sequential/small_texts", "wrong histogram on the empty text", NULL},
        {"outcome", "sequential/small_texts", "failed", ""},
        {"end", "sequential/small_texts", NULL, NULL},
    };
    static struct grading grading;
    decide(&grading, record_text(lines, 5), NULL);
    cr_assert_eq(grading.verdict, VERDICT_FAILED);
    cr_assert_geq(grading.problem_count, 2);
    cr_expect(strncmp(grading.problems[0], "GPU tests not run", 17) == 0, "first: %s",
              grading.problems[0]);
    char *terminal = written(terminal_summary, &grading);
    cr_expect(strstr(terminal, "NOT PASSED") && strstr(terminal, "not a grade"), "%s", terminal);
    char *json = written(write_gradescope_json, &grading);
    cr_expect(strstr(json, "graded on the course's GPU machines") &&
                  strstr(json, "not a grade"), "%s", json);
    free(terminal);
    free(json);
    grading_free(&grading);
}
