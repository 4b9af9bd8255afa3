/* Every report of a grading, written from the one results model (model.h). Each writer
 * returns 0, or -1 when its stream failed (a full disk, say). */
#ifndef GRADER_REPORTS_H
#define GRADER_REPORTS_H

#include "model.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* For the terminal: the points of every test, the failures' causes, and the verdict line. */
int write_terminal_summary(FILE *out, const struct grading *grading, const char *points_path);

/* Gradescope's results.json (its autograder specification): score, execution_time, output,
 * per-test name, number, score, max_score, status, output and visibility, stdout_visibility
 * and a leaderboard entry with the speed ratio. */
int write_gradescope_json(FILE *out, const struct grading *grading);

/* TAP version 13 that prove and tap.py accept: diagnostics as '#' lines, no YAML blocks; a
 * test that could not run here but counts in the maximum is "not ok", never a SKIP or TODO. */
int write_tap(FILE *out, const struct grading *grading);

/* JUnit XML valid under the Jenkins xunit plugin's junit-10.xsd: a wrong answer is a
 * failure; a crash, hang or early end an error, and so is a test that could not run here but
 * counts in the maximum (no GPU, a machine problem), with its reason. */
int write_junit_xml(FILE *out, const struct grading *grading);

/* summary.json: the verdict, counts, ratio, points and problems, for the class table. */
int write_summary_json(FILE *out, const struct grading *grading);

/* Text from a grading (a compiler's errors, a test's messages) made inert for every report, in a
 * malloc'ed copy (NULL: out of memory): each byte of a control character but newline and tab (a
 * terminal's escape sequences), of a C1 or bidirectional control, or that is not well-formed
 * UTF-8 is written as \xNN, visibly. */
char *inert_copy(const char *text);

/* Writes text as a JSON string literal: quotes and escapes, control characters (C1 and
 * bidirectional ones too) as \uXXXX, and bytes that are not UTF-8 as U+FFFD. */
void write_json_string(FILE *out, const char *text);

/* Writes text as XML character data or an attribute value (quotes escaped): characters XML
 * 1.0 forbids and bytes that are not UTF-8 become '?'; C1 and bidirectional controls are
 * written as character references. */
void write_xml_text(FILE *out, const char *text);

/* Writes text for a terminal or a plain-text report: what a student wrote (a compiler quoting
 * it, say) can neither move the cursor, clear the screen, reorder a line nor break the file's
 * UTF-8. Control characters (but tab, and newline when keep_lines) and bytes that are not UTF-8
 * are written as \xHH; C1 controls, line separators and bidirectional controls as \uHHHH. */
void write_inert_text(FILE *out, const char *text, bool keep_lines);

/* The same for size bytes of data, NUL bytes included (\x00); with keep_colors, the color codes
 * a program writes on a terminal (ESC [ digits m: Criterion's) are kept, which can neither move
 * the cursor nor clear anything. */
void write_inert_bytes(FILE *out, const char *data, size_t size, bool keep_lines, bool keep_colors);

/* How much of size bytes of a stream can be written now: all but an unfinished UTF-8 sequence
 * or escape code at the end, which the next bytes may finish. */
size_t inert_complete_part(const char *data, size_t size);

#endif
