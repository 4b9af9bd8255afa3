/* The points configuration, the TAP reader and the Gradescope writer: what instructors trust. */
#define _POSIX_C_SOURCE 200809L
#include "points.h"
#include "results.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

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
    cr_expect_eq(points_config_parse("fivelab test * 1\n", &config, error, sizeof error), -1);
    cr_expect(strstr(error, "expected a lab") != NULL, "got: %s", error);
    cr_expect_eq(points_config_parse("lab5 test * 1 extra\n", &config, error, sizeof error), -1);
    cr_expect_eq(points_config_parse("# only comments\n\n", &config, error, sizeof error), 0);
    cr_expect_eq(config.count, 0);
}

Test(points_config, the_shipped_default_parses)
{
    FILE *in = fopen(KIT_DATA_DIR "/../points.conf", "r");
    cr_assert(in, "grader/points.conf is missing");
    static char text[16384];
    size_t length = fread(text, 1, sizeof text - 1, in);
    fclose(in);
    text[length] = '\0';
    static struct points_config config;
    char error[256] = "";
    cr_expect_eq(points_config_parse(text, &config, error, sizeof error), 0, "%s", error);
    for (int lab = 1; lab <= 8; lab++) {
        char name[8];
        double points, full_at;
        snprintf(name, sizeof name, "lab%d", lab);
        cr_expect(performance_rule(&config, name, &points, &full_at), "no speed rule for %s", name);
    }
}

Test(performance_points, full_then_proportionally_less)
{
    cr_expect_float_eq(performance_points(20, 1.2, 0.5), 20.0, 1e-12);
    cr_expect_float_eq(performance_points(20, 1.2, 1.2), 20.0, 1e-12);
    cr_expect_float_eq(performance_points(20, 1.2, 2.4), 10.0, 1e-12);
    cr_expect_float_eq(performance_points(20, 1.2, 0.0), 0.0, 1e-12);
}

static const char *const sample_tap =
    "TAP version 13\n1..4\n# Criterion v2.4.1\n#\n# Running 4 tests from s\n"
    "ok - private_shared::bytes_257  (0.01s)\n"
    "ok - private_shared::your_input_file  # SKIP no --input FILE given\n"
    "not ok - private_shared::one_letter  (0.20s)\n"
    "  ---\n  assertions: 1\n  failures:\n  - grade_lab5.c:20: |+\n"
    "      Assertion failed: wrong histogram \"quoted\"\n"
    "        likely cause (lost-updates)\n  ...\n"
    "not ok - private_shared::long_runs timed out (60.00s)\n";

Test(tap_report, reads_results_and_reasons)
{
    struct test_result tests[8];
    cr_assert_eq(parse_tap_report(sample_tap, tests, 8), 4);
    cr_expect_str_eq(tests[0].name, "private_shared/bytes_257");
    cr_expect_eq(tests[0].status, TEST_PASSED);
    cr_expect_eq(tests[1].status, TEST_SKIPPED);
    cr_expect_str_eq(tests[1].output, "no --input FILE given");
    cr_expect_eq(tests[2].status, TEST_FAILED);
    cr_expect(strstr(tests[2].output, "Assertion failed: wrong histogram") != NULL);
    cr_expect(strstr(tests[2].output, "likely cause (lost-updates)") != NULL);
    cr_expect_eq(tests[3].status, TEST_FAILED);
    cr_expect(strncmp(tests[3].output, "timed out", 9) == 0, "got: %s", tests[3].output);
    cr_expect_eq(parse_tap_report("ok 1 - not criterion\n", tests, 8), -1);
}

Test(gradescope, results_json_has_the_documented_fields)
{
    struct test_result tests[2] = {
        {.name = "private_shared/bytes_257", .status = TEST_PASSED, .score = 2, .max_score = 2},
        {.name = "private_shared/one_letter", .status = TEST_FAILED, .score = 0, .max_score = 2,
         .output = "wrong \"histogram\"\n\tbin 3"},
    };
    char *json = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&json, &size);
    write_gradescope_results(out, 2, "lab5: 1 passed", tests, 2);
    fclose(out);
    cr_expect(strstr(json, "\"score\": 2.00,") != NULL);
    cr_expect(strstr(json, "\"tests\": [") != NULL);
    cr_expect(strstr(json, "{\"name\": \"private_shared/one_letter\", \"score\": 0.00, "
                           "\"max_score\": 2.00, \"status\": \"failed\", \"output\": "
                           "\"wrong \\\"histogram\\\"\\n\\tbin 3\"}") != NULL,
              "got: %s", json);
    free(json);
}
