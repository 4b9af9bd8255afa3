#define _POSIX_C_SOURCE 200809L
#include "reports.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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

/* The code point of a well-formed UTF-8 sequence of length bytes. */
static unsigned code_point(const unsigned char *text, int length)
{
    unsigned code = length == 2 ? text[0] & 0x1Fu : length == 3 ? text[0] & 0x0Fu : text[0] & 0x07u;
    for (int i = 1; i < length; i++)
        code = code << 6 | (text[i] & 0x3Fu);
    return code;
}

/* Characters a terminal or an editor acts on rather than shows: C1 controls (U+009B is an 8-bit
 * CSI, the start of an escape code, to many terminals), line and paragraph separators, and the
 * bidirectional marks, embeddings, overrides and isolates that reorder what a line shows. */
static bool acts_on_the_display(unsigned code)
{
    return (code >= 0x80 && code <= 0x9F) || code == 0x061C || code == 0x200E || code == 0x200F ||
           (code >= 0x2028 && code <= 0x202E) || (code >= 0x2066 && code <= 0x2069);
}

char *inert_copy(const char *text)
{
    size_t size = 4 * strlen(text) + 1, used = 0;
    char *copy = malloc(size);
    if (!copy)
        return NULL;
    for (const unsigned char *at = (const unsigned char *)text; *at;) {
        int length = utf8_length(at), step = length ? length : 1;
        bool acts = length == 0 ||
                    (length == 1 && ((*at < 0x20 && *at != '\n' && *at != '\t') || *at == 0x7F)) ||
                    (length > 1 && acts_on_the_display(code_point(at, length)));
        for (int i = 0; i < step; i++)
            used += (size_t)snprintf(copy + used, size - used, acts ? "\\x%02x" : "%c", at[i]);
        at += step;
    }
    copy[used] = '\0';
    return copy;
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
        if (length > 1) { /* (escaped, a character that acts on a display stays inert in the file) */
            if (acts_on_the_display(code_point(at, length)))
                fprintf(out, "\\u%04x", code_point(at, length));
            else
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

/* The length of a color code at text (ESC [ digits and semicolons m), 0 if none there. */
static size_t color_code_length(const unsigned char *text, size_t length)
{
    if (length < 3 || text[0] != 0x1B || text[1] != '[')
        return 0;
    for (size_t i = 2; i < length; i++) {
        if (text[i] == 'm')
            return i + 1;
        if (!(text[i] >= '0' && text[i] <= '9') && text[i] != ';')
            return 0;
    }
    return 0;
}

void write_inert_bytes(FILE *out, const char *data, size_t size, bool keep_lines, bool keep_colors)
{
    const unsigned char *at = (const unsigned char *)data, *end = at + size;
    while (at < end) {
        size_t color = keep_colors ? color_code_length(at, (size_t)(end - at)) : 0;
        int length = *at ? utf8_length(at) : 1;
        if (color) {
            fwrite(at, 1, color, out);
            at += color;
        } else if (length == 0 || at + length > end) {
            fprintf(out, "\\x%02x", *at);
            at++;
        } else if (length == 1) {
            bool kept = *at == '\t' || (keep_lines && *at == '\n');
            if ((*at < 0x20 || *at == 0x7F) && !kept)
                fprintf(out, "\\x%02x", *at);
            else
                fputc(*at, out);
            at++;
        } else {
            unsigned code = code_point(at, length);
            if (acts_on_the_display(code))
                fprintf(out, "\\u%04x", code);
            else
                fwrite(at, 1, (size_t)length, out);
            at += length;
        }
    }
}

size_t inert_complete_part(const char *data, size_t size)
{
    const unsigned char *text = (const unsigned char *)data;
    size_t from = size > 16 ? size - 16 : 0;
    for (size_t at = size; at-- > from;) {
        if (text[at] == 0x1B) { /* an escape code not finished yet? */
            size_t i = at + 1;
            if (i < size && text[i] == '[')
                for (i++; i < size && ((text[i] >= '0' && text[i] <= '9') || text[i] == ';'); i++)
                    ;
            if (i == size)
                return at;
        }
    }
    for (size_t at = size; at-- > from && size - at < 4;) {
        int needs = text[at] >= 0xF0 && text[at] <= 0xF4   ? 4
                    : text[at] >= 0xE0 && text[at] <= 0xEF ? 3
                    : text[at] >= 0xC2 && text[at] <= 0xDF ? 2
                                                           : 0;
        if ((text[at] & 0xC0) == 0x80)
            continue; /* a continuation byte: its lead is before it */
        return needs > (int)(size - at) ? at : size;
    }
    return size;
}

void write_inert_text(FILE *out, const char *text, bool keep_lines)
{
    write_inert_bytes(out, text ? text : "", text ? strlen(text) : 0, keep_lines, false);
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
        if (length > 1) { /* (a reference, a character that acts on a display stays inert in the file) */
            if (acts_on_the_display(code_point(at, length)))
                fprintf(out, "&#x%x;", code_point(at, length));
            else
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
    else if (test->state == STATE_NOT_RUN)
        snprintf(out, size, "not run: %s%s%s", not_run_words(test->not_run), test->output[0] ? "\n" : "",
                 test->output);
    else
        snprintf(out, size, "%s", test->output);
}

static int finish(FILE *out)
{
    return fflush(out) == 0 && !ferror(out) ? 0 : -1;
}

/* The performance line's maximum: the rule's points, or 0 when they are out of the maximum. */
static double speed_maximum(const struct grading *grading)
{
    return grading->speed_in_maximum ? grading->speed_max : 0;
}

int write_terminal_summary(FILE *out, const struct grading *grading, const char *points_path)
{
    const char *lab = grading->short_lab;
    fputs("\npoints (", out);
    write_inert_text(out, points_path, false);
    fputs("):\n", out);
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
    if (grading->has_speed_rule) {
        fprintf(out, "  %-60s %-8s %5.1f / %.1f   (", "performance (your time / the reference's)",
                grading->speed_points > 0 ? "timed" : "-", grading->speed_points, speed_maximum(grading));
        write_inert_text(out, grading->speed_output, false);
        fputs(")\n", out);
    }
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

    if (grading->machine_problem && grading->verdict != VERDICT_MACHINE_BROKEN) {
        fprintf(out, "grade: %s: this machine could not run every test either: ", lab);
        write_inert_text(out, grading->machine_problem, false);
        fputc('\n', out);
    }
    const char *first_problem = grading->problem_count ? grading->problems[0] : NULL;
    switch (grading->verdict) {
    case VERDICT_PASSED: fprintf(out, "grade: %s: PASSED\n", lab); break;
    case VERDICT_FAILED:
        fprintf(out, "grade: %s: NOT PASSED: read the failures above, fix, and run ./grade %s "
                     "again", lab, lab);
        if (grading->needs_gpu) {
            fprintf(out, " (%d more tests need a CUDA GPU and were not run here (", grading->needs_gpu);
            write_inert_text(out, grading->gpu_reason ? grading->gpu_reason : "no reason given",
                             false);
            fputs("): these points are not a grade)", out);
        }
        fputc('\n', out);
        break;
    case VERDICT_DOES_NOT_COMPILE:
        fprintf(out, "grade: %s: NOT PASSED: the code does not build; the first error:\n    ", lab);
        write_inert_text(out, first_problem ? first_problem : "(none shown)", false);
        fputc('\n', out);
        break;
    case VERDICT_NO_FILE:
        fprintf(out, "grade: %s: NOT PASSED: ", lab);
        write_inert_text(out, first_problem ? first_problem : "no file", false);
        fputc('\n', out);
        break;
    case VERDICT_NOT_GRADED_ON_GPU:
        fprintf(out, "grade: %s: NOT GRADED: %d tests need a CUDA GPU and this machine has none "
                     "usable (", lab, grading->needs_gpu);
        write_inert_text(out, grading->gpu_reason ? grading->gpu_reason : "no reason given", false);
        fputs("); the tests a CPU can run passed. Points above count the GPU tests as 0.\n", out);
        break;
    case VERDICT_MACHINE_BROKEN:
        fprintf(out, "grade: %s: NOT GRADED: this grading machine cannot grade the lab: ", lab);
        write_inert_text(out, grading->machine_problem, false);
        fputs(". This is not your code's fault: tell whoever runs the machine.\n", out);
        break;
    case VERDICT_NO_TEST_RAN:
        fprintf(out, "grade: %s: no test ran", lab);
        if (grading->setup.filter) {
            fputs(" (--filter '", out);
            write_inert_text(out, grading->setup.filter, false);
            fputs("' matches none of the lab's tests)", out);
        }
        fputs(": nothing was graded\n", out);
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
    if (grading->needs_gpu) /* not graded on a GPU, or failed with the GPU tests not run */
        snprintf(summary + strlen(summary), sizeof summary - strlen(summary),
                 " The GPU tests were not run here (%s): they are graded on the course's GPU "
                 "machines, and these points are not a grade.",
                 grading->gpu_reason ? grading->gpu_reason : "no GPU");
    if (grading->has_speed_rule && !grading->speed_in_maximum)
        snprintf(summary + strlen(summary), sizeof summary - strlen(summary), " Performance: %s.",
                 grading->speed_output);
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
        /* A test that could not run here earns nothing and is no pass, even one worth 0 (whose
           score would equal its maximum, which Gradescope calls passed). */
        fprintf(out, ", \"score\": %.2f, \"max_score\": %.2f, \"status\": \"%s\"", test->score,
                test->max_score, test->state == STATE_PASSED ? "passed" : "failed");
        fputs(", \"visibility\": \"visible\", \"output\": ", out);
        write_json_string(out, output);
        fputc('}', out);
    }
    if (grading->has_speed_rule && grading->speed_in_maximum) {
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
                     "%.6g, \"order\": \"asc\"}\n  ]", grading->time_ratio);
    fputs("\n}\n", out);
    return finish(out);
}

/* One '#' line a line of text, made inert: a diagnostic is text a student's code or compiler
 * output can hold. */
static void write_tap_diagnostics(FILE *out, const char *text)
{
    for (const char *line = text; *line;) {
        size_t length = strcspn(line, "\n");
        char *copy = strndup(line, length);
        fputs("# ", out);
        write_inert_text(out, copy ? copy : "(out of memory)", false);
        fputc('\n', out);
        free(copy);
        line += length + (line[length] ? 1 : 0);
    }
}

/* TAP has "ok", "not ok" and two directives, SKIP and TODO, both of which prove and tap.py count
 * as passing: a test that could not run here (no GPU, a machine problem, no build) and counts
 * in the maximum is "not ok", with why as diagnostics. Tests out of the maximum (left out by
 * --filter, not asked for) are not listed. */
int write_tap(FILE *out, const struct grading *grading)
{
    int total = 0;
    for (int t = 0; t < grading->count; t++)
        total += grading->tests[t].in_maximum || grading->tests[t].state != STATE_NOT_RUN;
    fprintf(out, "TAP version 13\n1..%d\n", total);
    char header[512];
    snprintf(header, sizeof header, "%s: %s", grading->setup.lab, verdict_name(grading->verdict));
    write_tap_diagnostics(out, header);
    if (grading->has_speed_rule && !grading->speed_in_maximum) {
        snprintf(header, sizeof header, "performance: %s", grading->speed_output);
        write_tap_diagnostics(out, header);
    }
    static char output[65536];
    int number = 0;
    for (int t = 0; t < grading->count; t++) {
        const struct graded_test *test = &grading->tests[t];
        if (!test->in_maximum && test->state == STATE_NOT_RUN)
            continue;
        number++;
        fprintf(out, "%s %d - %s\n", test->state == STATE_PASSED ? "ok" : "not ok", number, test->name);
        if (test->state != STATE_PASSED) {
            test_output(output, sizeof output, test);
            write_tap_diagnostics(out, output);
        }
    }
    return finish(out);
}

/* JUnit's elements: a wrong answer (or no build, no file) is a failure; a crash, a hang, an
 * early end, and a test that could not run here but counts in the maximum (no GPU, a machine
 * problem) an error: consumers count <skipped> as neither failed nor errored. */
static const char *junit_element(const struct graded_test *test)
{
    if (test->state == STATE_PASSED)
        return NULL;
    if (test->state == STATE_NOT_RUN)
        return test->not_run == NOT_RUN_NOT_BUILT || test->not_run == NOT_RUN_NO_FILE ? "failure" : "error";
    return test->cause == CAUSE_WRONG || test->cause == CAUSE_BUILD || test->cause == CAUSE_NO_FILE ? "failure"
                                                                                                   : "error";
}

int write_junit_xml(FILE *out, const struct grading *grading)
{
    int tests = 0, failures = 0, errors = 0;
    for (int t = 0; t < grading->count; t++) {
        const struct graded_test *test = &grading->tests[t];
        if (!test->in_maximum && test->state == STATE_NOT_RUN)
            continue;
        const char *element = junit_element(test);
        tests++;
        failures += element && strcmp(element, "failure") == 0;
        errors += element && strcmp(element, "error") == 0;
    }
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"", out);
    write_xml_text(out, grading->setup.lab);
    fprintf(out, "\" tests=\"%d\" failures=\"%d\" errors=\"%d\" time=\"%.3f\">\n", tests, failures,
            errors, grading->seconds);
    fputs("  <testsuite name=\"", out);
    write_xml_text(out, grading->setup.lab);
    fprintf(out, "\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"0\" time=\"%.3f\">\n",
            tests, failures, errors, grading->seconds);
    if (grading->has_speed_rule && !grading->speed_in_maximum) {
        fputs("    <properties>\n      <property name=\"performance\" value=\"", out);
        write_xml_text(out, grading->speed_output);
        fputs("\"/>\n    </properties>\n", out);
    }
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
        const char *element = junit_element(test);
        if (!element) {
            fputs("/>\n", out);
            continue;
        }
        test_output(output, sizeof output, test);
        char message[200];
        snprintf(message, sizeof message, "not run: %s", not_run_words(test->not_run));
        bool ran = test->state != STATE_NOT_RUN;
        fprintf(out, ">\n      <%s message=\"", element);
        write_xml_text(out, ran ? failure_cause_name(test->cause) : message);
        fputs("\" type=\"", out);
        write_xml_text(out, ran ? failure_cause_name(test->cause) : "not run");
        fputs("\">", out);
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
    /* Six significant figures: a ratio below 0.0005 would read 0.000 at three decimals, which
     * the class table's reader refuses as no ratio. */
    if (grading->time_ratio > 0)
        fprintf(out, "%.6g", grading->time_ratio);
    else
        fputs("null", out);
    fprintf(out, ",\n  \"score\": %.2f,\n  \"max_score\": %.2f,\n  \"performance\": ", grading->score,
            grading->max_score);
    if (grading->has_speed_rule)
        write_json_string(out, grading->speed_output);
    else
        fputs("null", out);
    fputs(",\n  \"seed\": ", out);
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
