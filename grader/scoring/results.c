#define _POSIX_C_SOURCE 200809L
#include "results.h"

#include <stdbool.h>
#include <string.h>

/* "ok - suite::test  (0.01s)" or "not ok - suite::test timed out (60.00s)" or
 * "ok - suite::test # SKIP reason": copies "suite/test" into name and returns what follows it. */
static const char *read_test_name(const char *at, char *name, size_t size)
{
    size_t length = 0;
    while (*at && *at != ' ' && *at != '\n') {
        if (at[0] == ':' && at[1] == ':') {
            if (length + 1 < size)
                name[length++] = '/';
            at += 2;
            continue;
        }
        if (length + 1 < size)
            name[length++] = *at;
        at++;
    }
    name[length] = '\0';
    return at;
}

static void append(char *to, size_t size, const char *from, size_t length)
{
    size_t used = strlen(to);
    if (used + 1 >= size)
        return;
    if (length > size - used - 1)
        length = size - used - 1;
    memcpy(to + used, from, length);
    to[used + length] = '\0';
}

int parse_tap_report(const char *text, struct test_result *tests, int max_tests)
{
    if (strncmp(text, "TAP version", 11) != 0)
        return -1;
    int count = 0;
    struct test_result *current = NULL;
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        size_t length = end ? (size_t)(end - line) : strlen(line);
        bool passed = strncmp(line, "ok - ", 5) == 0, failed = strncmp(line, "not ok - ", 9) == 0;
        if (passed || failed) {
            current = count < max_tests ? &tests[count] : NULL;
            count++;
            if (current) {
                memset(current, 0, sizeof *current);
                const char *rest = read_test_name(line + (passed ? 5 : 9), current->name,
                                                  sizeof current->name);
                const char *skip = strstr(rest, "# SKIP");
                if (skip && skip < line + length) {
                    current->status = TEST_SKIPPED;
                    const char *reason = skip + 6;
                    while (*reason == ' ')
                        reason++;
                    append(current->output, sizeof current->output, reason,
                           (size_t)(line + length - reason));
                } else {
                    current->status = passed ? TEST_PASSED : TEST_FAILED;
                    /* "timed out", "unexpected signal after file:line": say so in the output */
                    while (*rest == ' ')
                        rest++;
                    if (failed && rest < line + length && *rest != '(') {
                        const char *cause_end = strstr(rest, " (");
                        size_t cause = cause_end && cause_end < line + length
                                           ? (size_t)(cause_end - rest)
                                           : (size_t)(line + length - rest);
                        append(current->output, sizeof current->output, rest, cause);
                        append(current->output, sizeof current->output, "\n", 1);
                    }
                }
            }
        } else if (current && current->status == TEST_FAILED && length > 4 &&
                   strncmp(line, "    ", 4) == 0) {
            /* The YAML block of a failure: its messages, indented; keep them less the indent. */
            const char *content = line;
            while (content < line + length && *content == ' ')
                content++;
            if (strncmp(content, "- ", 2) != 0 || strchr(content, '|') == NULL) {
                append(current->output, sizeof current->output, content,
                       (size_t)(line + length - content));
                append(current->output, sizeof current->output, "\n", 1);
            }
        }
        line += length + (end ? 1 : 0);
    }
    return count;
}

void write_json_string(FILE *out, const char *text)
{
    fputc('"', out);
    for (const unsigned char *at = (const unsigned char *)text; *at; at++) {
        switch (*at) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        case '\t': fputs("\\t", out); break;
        default:
            if (*at < 0x20)
                fprintf(out, "\\u%04x", *at);
            else
                fputc(*at, out);
        }
    }
    fputc('"', out);
}

void write_gradescope_results(FILE *out, double score, const char *output,
                              const struct test_result *tests, int count)
{
    fprintf(out, "{\n  \"score\": %.2f,\n  \"output\": ", score);
    write_json_string(out, output);
    fprintf(out, ",\n  \"visibility\": \"visible\",\n  \"tests\": [");
    for (int t = 0; t < count; t++) {
        const struct test_result *test = &tests[t];
        fprintf(out, "%s\n    {\"name\": ", t ? "," : "");
        write_json_string(out, test->name);
        fprintf(out, ", \"score\": %.2f, \"max_score\": %.2f, \"status\": \"%s\", \"output\": ",
                test->score, test->max_score,
                test->status == TEST_PASSED ? "passed" : "failed");
        write_json_string(out, test->status == TEST_PASSED ? "passed" : test->output);
        fputc('}', out);
    }
    fprintf(out, "\n  ]\n}\n");
}
