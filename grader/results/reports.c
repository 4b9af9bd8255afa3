#include "reports.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* The length of the UTF-8 sequence at text (1-4), or 0 when it is not well-formed UTF-8: no
 * overlong forms, no surrogates, nothing past U+10FFFF (RFC 3629). */
static int utf8_length(const unsigned char *text)
{
    if (text[0] < 0x80)
        return 1;
    int length = text[0] >= 0xF0 && text[0] <= 0xF4 ? 4
                 : text[0] >= 0xE0 && text[0] <= 0xEF ? 3
                 : text[0] >= 0xC2 && text[0] <= 0xDF ? 2
                                                      : 0;
    for (int i = 1; i < length; i++)
        if ((text[i] & 0xC0) != 0x80)
            return 0;
    bool out_of_range = (text[0] == 0xE0 && text[1] < 0xA0) ||  /* overlong */
                        (text[0] == 0xED && text[1] >= 0xA0) || /* a surrogate */
                        (text[0] == 0xF0 && text[1] < 0x90) ||  /* overlong */
                        (text[0] == 0xF4 && text[1] >= 0x90);   /* past U+10FFFF */
    return length > 1 && out_of_range ? 0 : length;
}

void make_text_inert(char *text)
{
    for (unsigned char *at = (unsigned char *)text; *at;) {
        int length = utf8_length(at);
        bool c1_control = length == 2 && at[0] == 0xC2 && at[1] < 0xA0;
        bool bidi_control = length == 3 && at[0] == 0xE2 &&
                            ((at[1] == 0x80 && at[2] >= 0xAA && at[2] <= 0xAE) ||
                             (at[1] == 0x81 && at[2] >= 0xA6 && at[2] <= 0xA9));
        if (length == 0 || c1_control || bidi_control ||
            (length == 1 && ((*at < 0x20 && *at != '\n' && *at != '\t') || *at == 0x7F))) {
            for (int i = 0; i < (length ? length : 1); i++)
                at[i] = '?';
            at += length ? length : 1;
        } else {
            at += length;
        }
    }
}

void write_json_string(FILE *out, const char *text)
{
    fputc('"', out);
    for (const unsigned char *at = (const unsigned char *)(text ? text : ""); *at;) {
        int length = utf8_length(at);
        if (length == 0) {
            fputs("\\ufffd", out);
            at++;
            continue;
        }
        if (length > 1) {
            fwrite(at, 1, (size_t)length, out);
            at += length;
            continue;
        }
        switch (*at) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        case '\t': fputs("\\t", out); break;
        default:
            if (*at < 0x20 || *at == 0x7F)
                fprintf(out, "\\u%04x", *at);
            else
                fputc(*at, out);
        }
        at++;
    }
    fputc('"', out);
}

void write_xml_text(FILE *out, const char *text)
{
    for (const unsigned char *at = (const unsigned char *)(text ? text : ""); *at;) {
        int length = utf8_length(at);
        bool not_a_character = length == 3 && at[0] == 0xEF && at[1] == 0xBF && at[2] >= 0xBE;
        if (not_a_character) { /* U+FFFE and U+FFFF, which XML 1.0 forbids */
            fputc('?', out);
            at += 3;
            continue;
        }
        if (length > 1) {
            fwrite(at, 1, (size_t)length, out);
            at += length;
            continue;
        }
        switch (length == 0 ? '?' : *at) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\n': fputs("&#10;", out); break;
        case '\t': fputs("&#9;", out); break;
        default: fputc(*at < 0x20 || *at == 0x7F || length == 0 ? '?' : *at, out);
        }
        at++;
    }
}

static const char *state_word(const struct graded_test *test)
{
    return test->state == STATE_PASSED ? "passed"
           : test->state == STATE_FAILED ? "FAILED"
                                         : "not run";
}

/* Why a test did not run, in a few words. */
static const char *not_run_words(enum not_run_reason reason)
{
    switch (reason) {
    case NOT_RUN_FILTERED: return "left out by --filter";
    case NOT_RUN_NOT_ASKED: return "not asked for";
    case NOT_RUN_NEEDS_GPU: return "needs a GPU";
    case NOT_RUN_MACHINE: return "the grading machine cannot run it";
    case NOT_RUN_NOT_BUILT: return "the code does not build";
    case NOT_RUN_NO_FILE: return "there is no file to grade";
    }
    return "not run";
}

/* The whole output of a test, as its reports show it. */
static void test_output(char *out, size_t size, const struct graded_test *test)
{
    if (test->state == STATE_PASSED)
        snprintf(out, size, "passed");
    else if (test->state == STATE_NOT_RUN && !test->output[0])
        snprintf(out, size, "not run: %s", not_run_words(test->not_run));
    else
        snprintf(out, size, "%s", test->output);
}

static int finish(FILE *out)
{
    return fflush(out) == 0 && !ferror(out) ? 0 : -1;
}

int write_terminal_summary(FILE *out, const struct grading *grading, const char *points_path)
{
    const char *lab = grading->short_lab;
    fprintf(out, "\npoints (%s):\n", points_path);
    for (int t = 0; t < grading->count; t++) {
        const struct graded_test *test = &grading->tests[t];
        if (!test->in_maximum && test->state == STATE_NOT_RUN)
            continue;
        fprintf(out, "  %-60s %-8s %5.1f / %.1f", test->name, state_word(test), test->score,
                test->max_score);
        if (test->state == STATE_FAILED && test->cause != CAUSE_WRONG)
            fprintf(out, "   (%s)", failure_cause_name(test->cause));
        else if (test->state == STATE_NOT_RUN)
            fprintf(out, "   (%s)", not_run_words(test->not_run));
        fputc('\n', out);
    }
    if (grading->has_speed_rule)
        fprintf(out, "  %-60s %-8s %5.1f / %.1f   (%s)\n", "performance (your time / the reference's)",
                grading->speed_points > 0 ? "timed" : "-", grading->speed_points,
                grading->speed_max, grading->speed_output);
    fprintf(out, "  %-60s          %5.1f / %.1f\n", "total", grading->score, grading->max_score);

    fprintf(out, "grade: %s: %d passed, %d failed", lab, grading->passed, grading->failed);
    const char *separator = " (of which ";
    for (int c = CAUSE_CRASHED; c < CAUSE_COUNT; c++) {
        if (!grading->causes[c] || c == CAUSE_BUILD || c == CAUSE_NO_FILE)
            continue;
        fprintf(out, "%s%d %s", separator, grading->causes[c], failure_cause_name(c));
        separator = ", ";
    }
    fprintf(out, "%s, %d not run\n", separator[0] == ',' ? ")" : "", grading->not_run);

    if (grading->machine_problem && grading->verdict != VERDICT_MACHINE_BROKEN)
        fprintf(out, "grade: %s: this machine could not run every test either: %s\n", lab,
                grading->machine_problem);
    switch (grading->verdict) {
    case VERDICT_PASSED: fprintf(out, "grade: %s: PASSED\n", lab); break;
    case VERDICT_FAILED:
        fprintf(out, "grade: %s: NOT PASSED: read the failures above, fix, and run ./grade %s "
                     "again\n", lab, lab);
        break;
    case VERDICT_DOES_NOT_COMPILE:
        fprintf(out, "grade: %s: NOT PASSED: the code does not build; the first error:\n    %s\n",
                lab, grading->problem_count ? grading->problems[0] : "(none shown)");
        break;
    case VERDICT_NO_FILE:
        fprintf(out, "grade: %s: NOT PASSED: %s\n", lab,
                grading->problem_count ? grading->problems[0] : "no file");
        break;
    case VERDICT_NOT_GRADED_ON_GPU:
        fprintf(out, "grade: %s: NOT GRADED: %d tests need a CUDA GPU and this machine has none "
                     "usable (%s); the tests a CPU can run passed. Points above count the GPU "
                     "tests as 0.\n", lab, grading->needs_gpu,
                grading->gpu_reason ? grading->gpu_reason : "no reason given");
        break;
    case VERDICT_MACHINE_BROKEN:
        fprintf(out, "grade: %s: NOT GRADED: this grading machine cannot grade the lab: %s. This "
                     "is not your code's fault: tell whoever runs the machine.\n", lab,
                grading->machine_problem);
        break;
    case VERDICT_NO_TEST_RAN:
        fprintf(out, "grade: %s: no test ran%s%s%s: nothing was graded\n", lab,
                grading->setup.filter ? " (--filter '" : "",
                grading->setup.filter ? grading->setup.filter : "",
                grading->setup.filter ? "' matches none of the lab's tests)" : "");
        break;
    }
    return finish(out);
}

int write_gradescope_json(FILE *out, const struct grading *grading)
{
    char summary[512];
    snprintf(summary, sizeof summary, "%s: %s. %d tests passed, %d failed, %d not run; %.1f of "
             "%.1f points.", grading->setup.lab, verdict_name(grading->verdict), grading->passed,
             grading->failed, grading->not_run, grading->score, grading->max_score);
    if (grading->verdict == VERDICT_NOT_GRADED_ON_GPU)
        snprintf(summary + strlen(summary), sizeof summary - strlen(summary),
                 " The GPU tests were not run here (%s): they are graded on the course's GPU "
                 "machines.", grading->gpu_reason ? grading->gpu_reason : "no GPU");
    fprintf(out, "{\n  \"score\": %.2f,\n  \"execution_time\": %.0f,\n  \"output\": ",
            grading->score, grading->seconds + 0.5);
    write_json_string(out, summary);
    fputs(",\n  \"output_format\": \"text\",\n  \"test_output_format\": \"text\",\n"
          "  \"stdout_visibility\": \"visible\",\n  \"visibility\": \"visible\",\n  \"tests\": [",
          out);
    static char output[65536];
    int number = 0;
    for (int t = 0; t < grading->count; t++) {
        const struct graded_test *test = &grading->tests[t];
        if (!test->in_maximum && test->state == STATE_NOT_RUN)
            continue;
        test_output(output, sizeof output, test);
        fprintf(out, "%s\n    {\"number\": \"%d\", \"name\": ", number ? "," : "", number + 1);
        number++;
        write_json_string(out, test->name);
        fprintf(out, ", \"score\": %.2f, \"max_score\": %.2f", test->score, test->max_score);
        if (test->state != STATE_NOT_RUN)
            fprintf(out, ", \"status\": \"%s\"", test->state == STATE_PASSED ? "passed" : "failed");
        fputs(", \"visibility\": \"visible\", \"output\": ", out);
        write_json_string(out, output);
        fputc('}', out);
    }
    if (grading->has_speed_rule) {
        fprintf(out, "%s\n    {\"number\": \"%d\", \"name\": \"performance (your time / the "
                     "reference's)\", \"score\": %.2f, \"max_score\": %.2f, \"status\": \"%s\", "
                     "\"visibility\": \"visible\", \"output\": ",
                number ? "," : "", number + 1, grading->speed_points, grading->speed_max,
                grading->speed_points > 0 ? "passed" : "failed");
        write_json_string(out, grading->speed_output);
        fputc('}', out);
    }
    fputs("\n  ]", out);
    if (grading->time_ratio > 0)
        fprintf(out, ",\n  \"leaderboard\": [\n    {\"name\": \"time / reference\", \"value\": "
                     "%.3f, \"order\": \"asc\"}\n  ]", grading->time_ratio);
    fputs("\n}\n", out);
    return finish(out);
}

/* One '#' line a line of text. */
static void write_tap_diagnostics(FILE *out, const char *text)
{
    for (const char *line = text; *line;) {
        size_t length = strcspn(line, "\n");
        fprintf(out, "# %.*s\n", (int)length, line);
        line += length + (line[length] ? 1 : 0);
    }
}

int write_tap(FILE *out, const struct grading *grading)
{
    int total = 0;
    for (int t = 0; t < grading->count; t++)
        total += grading->tests[t].in_maximum || grading->tests[t].state != STATE_NOT_RUN;
    fprintf(out, "TAP version 13\n1..%d\n# %s: %s\n", total, grading->setup.lab,
            verdict_name(grading->verdict));
    int number = 0;
    for (int t = 0; t < grading->count; t++) {
        const struct graded_test *test = &grading->tests[t];
        if (!test->in_maximum && test->state == STATE_NOT_RUN)
            continue;
        number++;
        if (test->state == STATE_NOT_RUN) {
            char reason[200];
            size_t length = strcspn(test->output, "\n");
            snprintf(reason, sizeof reason, "%s%s%.*s", not_run_words(test->not_run),
                     test->output[0] ? ": " : "", (int)(length < 150 ? length : 150), test->output);
            for (char *c = reason; *c; c++)
                if (*c == '#')
                    *c = ' ';
            fprintf(out, "ok %d - %s # SKIP %s\n", number, test->name, reason);
            continue;
        }
        fprintf(out, "%s %d - %s\n", test->state == STATE_PASSED ? "ok" : "not ok", number, test->name);
        if (test->state == STATE_FAILED)
            write_tap_diagnostics(out, test->output);
    }
    return finish(out);
}

int write_junit_xml(FILE *out, const struct grading *grading)
{
    int tests = 0, failures = 0, errors = 0, skipped = 0;
    for (int t = 0; t < grading->count; t++) {
        const struct graded_test *test = &grading->tests[t];
        if (!test->in_maximum && test->state == STATE_NOT_RUN)
            continue;
        tests++;
        failures += test->state == STATE_FAILED && (test->cause == CAUSE_WRONG || test->cause == CAUSE_BUILD || test->cause == CAUSE_NO_FILE);
        errors += test->state == STATE_FAILED && test->cause != CAUSE_WRONG && test->cause != CAUSE_BUILD && test->cause != CAUSE_NO_FILE;
        skipped += test->state == STATE_NOT_RUN;
    }
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"", out);
    write_xml_text(out, grading->setup.lab);
    fprintf(out, "\" tests=\"%d\" failures=\"%d\" errors=\"%d\" time=\"%.3f\">\n", tests, failures,
            errors, grading->seconds);
    fputs("  <testsuite name=\"", out);
    write_xml_text(out, grading->setup.lab);
    fprintf(out, "\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\" time=\"%.3f\">\n",
            tests, failures, errors, skipped, grading->seconds);
    static char output[65536];
    for (int t = 0; t < grading->count; t++) {
        const struct graded_test *test = &grading->tests[t];
        if (!test->in_maximum && test->state == STATE_NOT_RUN)
            continue;
        size_t suite_length = strcspn(test->name, "/");
        fputs("    <testcase name=\"", out);
        write_xml_text(out, test->name);
        fputs("\" classname=\"", out);
        write_xml_text(out, grading->setup.lab);
        fprintf(out, ".%.*s\" time=\"%.3f\"", (int)suite_length, test->name, test->seconds);
        if (test->state == STATE_PASSED) {
            fputs("/>\n", out);
            continue;
        }
        test_output(output, sizeof output, test);
        char first[200];
        size_t length = strcspn(output, "\n");
        snprintf(first, sizeof first, "%.*s", (int)(length < 199 ? length : 199), output);
        const char *element = test->state == STATE_NOT_RUN ? "skipped"
                              : test->cause == CAUSE_WRONG || test->cause == CAUSE_BUILD || test->cause == CAUSE_NO_FILE ? "failure"
                                                                                           : "error";
        fprintf(out, ">\n      <%s message=\"", element);
        write_xml_text(out, test->state == STATE_NOT_RUN ? first : failure_cause_name(test->cause));
        if (test->state == STATE_NOT_RUN) {
            fputs("\"/>\n    </testcase>\n", out);
            continue;
        }
        fprintf(out, "\" type=\"%s\">", failure_cause_name(test->cause));
        write_xml_text(out, output);
        fprintf(out, "</%s>\n    </testcase>\n", element);
    }
    fputs("  </testsuite>\n</testsuites>\n", out);
    return finish(out);
}

int write_summary_json(FILE *out, const struct grading *grading)
{
    fputs("{\n  \"lab\": ", out);
    write_json_string(out, grading->setup.lab);
    fputs(",\n  \"student\": ", out);
    if (grading->setup.student)
        write_json_string(out, grading->setup.student);
    else
        fputs("null", out);
    fputs(",\n  \"verdict\": ", out);
    write_json_string(out, verdict_name(grading->verdict));
    fprintf(out, ",\n  \"exit_code\": %d,\n  \"tests_passed\": %d,\n  \"tests_failed\": %d,\n"
                 "  \"tests_not_run\": %d,\n  \"time_ratio\": ",
            grading->exit_code, grading->passed, grading->failed, grading->not_run);
    if (grading->time_ratio > 0)
        fprintf(out, "%.3f", grading->time_ratio);
    else
        fputs("null", out);
    fprintf(out, ",\n  \"score\": %.2f,\n  \"max_score\": %.2f,\n  \"seed\": ", grading->score,
            grading->max_score);
    if (grading->setup.has_seed)
        fprintf(out, "%llu", grading->setup.seed);
    else
        fputs("null", out);
    fputs(",\n  \"speed\": [", out);
    for (int i = 0; i < grading->timed_inputs; i++) {
        const struct timed_input *timed = &grading->timed[i];
        fputs(i ? ",\n    {\"test\": " : "\n    {\"test\": ", out);
        write_json_string(out, timed->test);
        fputs(", \"input\": ", out);
        write_json_string(out, timed->input);
        fprintf(out, ", \"yours_ms\": %.6g, \"reference_ms\": %.6g}", timed->mine_ms,
                timed->reference_ms);
    }
    fputs(grading->timed_inputs ? "\n  ]" : "]", out);
    fputs(",\n  \"problems\": [", out);
    for (int p = 0; p < grading->problem_count; p++) {
        fputs(p ? ",\n    " : "\n    ", out);
        write_json_string(out, grading->problems[p]);
    }
    fputs(grading->problem_count ? "\n  ]\n}\n" : "]\n}\n", out);
    return finish(out);
}
