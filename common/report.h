/* Tables the graders and demos print. They are Markdown, aligned for the terminal, so a result
 * can be pasted into a report or a handout as it is. */
#ifndef COMMON_REPORT_H
#define COMMON_REPORT_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TABLE_MAX_COLUMNS 10
#define TABLE_MAX_ROWS 48
#define TABLE_CELL_SIZE 64

struct table {
    int columns;
    int rows;
    char header[TABLE_MAX_COLUMNS][TABLE_CELL_SIZE];
    char cell[TABLE_MAX_ROWS][TABLE_MAX_COLUMNS][TABLE_CELL_SIZE];
};

void table_init(struct table *table, int columns, const char *const *headers);

/* Adds a row of `columns` strings; cells too long are cut, rows past TABLE_MAX_ROWS dropped. */
void table_add_row(struct table *table, const char *const *cells);

/* The first column left-aligned (names), the others right-aligned (numbers). */
void table_print(FILE *out, const struct table *table);

/* "12.3 ms"-style times: 3 significant digits, so 0.0532 and 187 both read well. */
void format_ms(char *out, size_t size, double ms);

/* A speedup (baseline time over student time) as "4.21x", or "0.58x (slower)". */
void format_speedup(char *out, size_t size, double baseline_ms, double student_ms);

#ifdef __cplusplus
}
#endif

#endif
