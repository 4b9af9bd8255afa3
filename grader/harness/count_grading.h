/* Grading the counting labs (1-3): exact counts over many launch shapes, and the speed table. */
#ifndef GRADER_COUNT_GRADING_H
#define GRADER_COUNT_GRADING_H

#include "counting.h"

/* The slides' launch: 32K blocks of 1024 threads. */
#define SLIDES_BLOCKS (32u * 1024u)
#define SLIDES_THREADS_PER_BLOCK 1024u

/* Checks that launch counts every thread exactly, for launch shapes from one thread to the
 * slides' 32M, including blocks that are not a power of two; a wrong count fails the test with
 * the shape, the count and a hint. */
void check_exact_counts(const char *function_name, count_launcher *launch);

/* The same on three small launches (up to 2048 threads): the test --sanitize runs. */
void check_small_counts(const char *function_name, count_launcher *launch);

enum count_kind { COUNT_EXACT, COUNT_RACY };

struct count_contender {
    const char *label;
    count_launcher *launch;
    enum count_kind kind; /* a racy count is checked to lie in [1, threads], not to be exact */
};

/* Times the contenders on the slides' launch (speed.h), and prints a table of count, time,
 * and speed relative to contender baseline_index. Fails the test if a timed run of an exact
 * contender miscounted. By convention the student's launcher comes first and the lab's
 * reference last: their times are recorded for the course's speed points. */
void report_count_speed(const struct count_contender *contenders, int count, int baseline_index);

#endif
