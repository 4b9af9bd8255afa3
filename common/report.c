#include "report.h"

#include <string.h>

static void copy_cell(char *to, const char *from)
{
    snprintf(to, TABLE_CELL_SIZE, "%s", from ? from : "");
}

void table_init(struct table *table, int columns, const char *const *headers)
{
    memset(table, 0, sizeof *table);
    table->columns = columns > TABLE_MAX_COLUMNS ? TABLE_MAX_COLUMNS : columns;
    for (int c = 0; c < table->columns; c++)
        copy_cell(table->header[c], headers[c]);
}

void table_add_row(struct table *table, const char *const *cells)
{
    if (table->rows == TABLE_MAX_ROWS)
        return;
    for (int c = 0; c < table->columns; c++)
        copy_cell(table->cell[table->rows][c], cells[c]);
    table->rows++;
}

void table_print(FILE *out, const struct table *table)
{
    int width[TABLE_MAX_COLUMNS];
    for (int c = 0; c < table->columns; c++) {
        width[c] = (int)strlen(table->header[c]);
        for (int r = 0; r < table->rows; r++) {
            int length = (int)strlen(table->cell[r][c]);
            if (length > width[c])
                width[c] = length;
        }
    }
    for (int c = 0; c < table->columns; c++)
        fprintf(out, c == 0 ? "| %-*s " : "| %*s ", width[c], table->header[c]);
    fprintf(out, "|\n");
    for (int c = 0; c < table->columns; c++) {
        /* Markdown's "---:" marks a right-aligned column. */
        fprintf(out, "| ");
        for (int k = 0; k < width[c] - (c == 0 ? 0 : 1); k++)
            fputc('-', out);
        fprintf(out, c == 0 ? " " : ": ");
    }
    fprintf(out, "|\n");
    for (int r = 0; r < table->rows; r++) {
        for (int c = 0; c < table->columns; c++)
            fprintf(out, c == 0 ? "| %-*s " : "| %*s ", width[c], table->cell[r][c]);
        fprintf(out, "|\n");
    }
}

void format_ms(char *out, size_t size, double ms)
{
    if (ms < 0)
        snprintf(out, size, "-");
    else if (ms >= 100)
        snprintf(out, size, "%.0f ms", ms);
    else if (ms >= 10)
        snprintf(out, size, "%.1f ms", ms);
    else if (ms >= 1)
        snprintf(out, size, "%.2f ms", ms);
    else
        snprintf(out, size, "%.3f ms", ms);
}

void format_speedup(char *out, size_t size, double baseline_ms, double student_ms)
{
    if (baseline_ms <= 0 || student_ms <= 0) {
        snprintf(out, size, "-");
        return;
    }
    double ratio = baseline_ms / student_ms;
    int digits = ratio >= 100 ? 0 : ratio >= 10 ? 1 : 2;
    /* "(slower)" only where the printed figure itself is below 1: 0.998 prints as 1.00x. */
    snprintf(out, size, ratio < 0.995 ? "%.*fx (slower)" : "%.*fx", digits, ratio);
}
