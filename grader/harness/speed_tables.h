/* The speed tables of the histogram labs (4-9): a row an input, your time and rate beside a
 * baseline's and the reference's, from the times of speed.h. */
#ifndef GRADER_SPEED_TABLES_H
#define GRADER_SPEED_TABLES_H

#include "report.h"
#include "speed.h"

#include <stdint.h>

/* A table of per-input rows comparing contenders[student] with contenders[baseline] and
 * contenders[reference] (-1: no reference column). The first table's student and reference
 * set the grading's speed points (record_performance). */
struct speed_table {
    const char *title;
    int student, baseline, reference;
};

#define MAX_SPEED_TABLES 4
#define MAX_SPEED_CONTENDERS 8

/* Before the timing: each table's student function whose reference fills its runs
 * (speed.h fills_runs) takes that reference's calls a run (calls_from). */
void speed_tables_share_calls(const struct speed_table *tables, int table_count,
                              struct timed_contender *contenders, int count);

/* Prints every table (its title, how it was timed, inputs_description, what its rate means),
 * and records the first table's times for the speed points. */
void speed_tables_report(const struct speed_workload *workload,
                         const struct timed_contender *contenders, int count,
                         const struct speed_results *results, const struct speed_table *tables,
                         int table_count, const char *inputs_description);

/* "1234 GB/s (56.7%)": a histogram's rate and its share of the copy's bandwidth. */
void format_rate(char *out, size_t size, uint64_t bytes, double ms, double copy_ms);

#endif
