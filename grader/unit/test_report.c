/* Tables and number formatting, as students will read them. */
#define _POSIX_C_SOURCE 200809L
#include "report.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

static char *print_to_string(const struct table *table)
{
    char *buffer = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&buffer, &size);
    cr_assert(out);
    table_print(out, table);
    fclose(out);
    return buffer;
}

Test(table, prints_aligned_markdown)
{
    const char *headers[] = {"input", "time"};
    struct table table;
    table_init(&table, 2, headers);
    const char *row1[] = {"english-like", "1.19 ms"};
    const char *row2[] = {"one-letter", "12.3 ms"};
    table_add_row(&table, row1);
    table_add_row(&table, row2);
    char *text = print_to_string(&table);
    cr_expect_str_eq(text, "| input        |    time |\n"
                           "| ------------ | ------: |\n"
                           "| english-like | 1.19 ms |\n"
                           "| one-letter   | 12.3 ms |\n");
    free(text);
}

Test(table, cuts_long_cells_and_extra_rows)
{
    const char *headers[] = {"a"};
    struct table table;
    table_init(&table, 1, headers);
    char long_cell[200];
    memset(long_cell, 'x', sizeof long_cell - 1);
    long_cell[sizeof long_cell - 1] = '\0';
    const char *row[] = {long_cell};
    for (int r = 0; r < TABLE_MAX_ROWS + 5; r++)
        table_add_row(&table, row);
    cr_expect_eq(table.rows, TABLE_MAX_ROWS);
    cr_expect_eq(strlen(table.cell[0][0]), TABLE_CELL_SIZE - 1);
}

Test(format, times_keep_three_significant_digits)
{
    char text[32];
    format_ms(text, sizeof text, 0.05321);
    cr_expect_str_eq(text, "0.053 ms");
    format_ms(text, sizeof text, 3.594);
    cr_expect_str_eq(text, "3.59 ms");
    format_ms(text, sizeof text, 23.14);
    cr_expect_str_eq(text, "23.1 ms");
    format_ms(text, sizeof text, 786.6);
    cr_expect_str_eq(text, "787 ms");
    format_ms(text, sizeof text, -1);
    cr_expect_str_eq(text, "-");
}

Test(format, speedups_say_when_they_are_slowdowns)
{
    char text[32];
    format_speedup(text, sizeof text, 8.24, 3.59);
    cr_expect_str_eq(text, "2.30x");
    format_speedup(text, sizeof text, 0.059, 0.783);
    cr_expect_str_eq(text, "0.08x (slower)");
    format_speedup(text, sizeof text, 786.6, 1.183);
    cr_expect_str_eq(text, "665x");
    format_speedup(text, sizeof text, 1.12, 1.122);
    cr_expect_str_eq(text, "1.00x");
    format_speedup(text, sizeof text, 1.0, 0.0);
    cr_expect_str_eq(text, "-");
}
