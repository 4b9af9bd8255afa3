/* The speed tables of the histogram labs (4-9): a row an input, your time and rate beside a
 * baseline's and the reference's. The text and the image graders time their contenders each
 * their own way and fill the same tables. */
#ifndef GRADER_SPEED_TABLES_H
#define GRADER_SPEED_TABLES_H

#include "report.h"

#include <stdint.h>

/* A table of per-input rows comparing contenders[student] with contenders[baseline] and
 * contenders[reference] (-1: no reference column). */
struct speed_table {
    const char *title;
    int student, baseline, reference;
};

#define MAX_SPEED_TABLES 4
#define MAX_SPEED_CONTENDERS 8

struct speed_tables {
    const struct speed_table *tables;
    int count;
    struct table printed[MAX_SPEED_TABLES];
};

/* Starts count tables (at most MAX_SPEED_TABLES) over contenders named labels[]. */
void speed_tables_init(struct speed_tables *speed, const struct speed_table *tables, int count,
                       const char *const *labels);

/* Adds the row of one input to every table: times_ms[] a contender, bytes_read by each, the
 * copy's time on the same input. The first table's student and reference times are the
 * grading's speed record (record_performance). */
void speed_tables_add_input(struct speed_tables *speed, const char *input, const double *times_ms,
                            uint64_t bytes_read, double copy_ms);

/* The line under a speed table's title that says what its rate column means: `read` is what a
 * contender reads ("text", "image"), copy_rate the copy's GB/s on the last input. */
void print_rate_legend(const char *read, double copy_rate);

/* "1234 GB/s (56.7%)": a histogram's rate and its share of the copy's bandwidth. */
void format_rate(char *out, size_t size, uint64_t bytes, double ms, double copy_ms);

#endif
