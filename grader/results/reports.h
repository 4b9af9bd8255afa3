/* Every report of a grading, written from the one results model (model.h). Each writer
 * returns 0, or -1 when its stream failed (a full disk, say). */
#ifndef GRADER_REPORTS_H
#define GRADER_REPORTS_H

#include "model.h"

#include <stdio.h>

/* For the terminal: the points of every test, the failures' causes, and the verdict line. */
int write_terminal_summary(FILE *out, const struct grading *grading, const char *points_path);

/* Gradescope's results.json (its autograder specification): score, execution_time, output,
 * per-test name, number, score, max_score, status, output and visibility, stdout_visibility
 * and a leaderboard entry with the speed ratio. */
int write_gradescope_json(FILE *out, const struct grading *grading);

/* TAP version 13 that prove and tap.py accept: diagnostics as '#' lines, no YAML blocks. */
int write_tap(FILE *out, const struct grading *grading);

/* JUnit XML valid under the Jenkins xunit plugin's junit-10.xsd: a wrong answer is a
 * failure, a crash, hang or early end an error, a test not run a skipped one with its reason. */
int write_junit_xml(FILE *out, const struct grading *grading);

/* summary.json: the verdict, counts, ratio, points and problems, for the class table. */
int write_summary_json(FILE *out, const struct grading *grading);

/* Makes text from a grading (a compiler's errors, a test's messages) inert for every report,
 * in place: each byte of a control character but newline and tab (a terminal's escape
 * sequences), of a C1 or bidirectional control, or that is not well-formed UTF-8 becomes '?'. */
void make_text_inert(char *text);

/* Writes text as a JSON string literal: quotes and escapes, control characters as \u00XX,
 * and bytes that are not UTF-8 as U+FFFD. */
void write_json_string(FILE *out, const char *text);

/* Writes text as XML character data or an attribute value (quotes escaped): characters XML
 * 1.0 forbids and bytes that are not UTF-8 become '?'. */
void write_xml_text(FILE *out, const char *text);

#endif
