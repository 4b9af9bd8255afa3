#include "speed_tables.h"

#include "bandwidth.h"
#include "grading.h"

#include <criterion/criterion.h>
#include <stdio.h>

void format_rate(char *out, size_t size, uint64_t bytes, double ms, double copy_ms)
{
    snprintf(out, size, "%.0f GB/s (%.1f%%)", gigabytes_per_second(bytes, ms),
             percent_of_copy_bandwidth(bytes, ms, bytes, copy_ms));
}

void speed_tables_init(struct speed_tables *speed, const struct speed_table *tables, int count,
                       const char *const *labels)
{
    cr_assert(count <= MAX_SPEED_TABLES, "speed_tables_init: at most %d tables", MAX_SPEED_TABLES);
    speed->tables = tables;
    speed->count = count;
    for (int t = 0; t < count; t++) {
        bool has_reference = tables[t].reference >= 0;
        const char *headers[] = {"input",
                                 labels[tables[t].student],
                                 "rate (% of copy)",
                                 labels[tables[t].baseline],
                                 "speedup",
                                 has_reference ? labels[tables[t].reference] : "",
                                 "reference rate (% of copy)"};
        table_init(&speed->printed[t], has_reference ? 7 : 5, headers);
    }
}

void speed_tables_add_input(struct speed_tables *speed, const char *input, const double *times_ms,
                            uint64_t bytes_read, double copy_ms)
{
    for (int t = 0; t < speed->count; t++) {
        const struct speed_table *table = &speed->tables[t];
        double student = times_ms[table->student], baseline = times_ms[table->baseline];
        char student_text[32], student_rate[48], baseline_text[32], speedup[32],
            reference_text[32] = "", reference_rate[48] = "";
        format_ms(student_text, sizeof student_text, student);
        format_rate(student_rate, sizeof student_rate, bytes_read, student, copy_ms);
        format_ms(baseline_text, sizeof baseline_text, baseline);
        format_speedup(speedup, sizeof speedup, baseline, student);
        if (table->reference >= 0) {
            double reference = times_ms[table->reference];
            if (t == 0) /* the test's main table sets its speed points */
                record_performance(input, student, reference);
            format_ms(reference_text, sizeof reference_text, reference);
            format_rate(reference_rate, sizeof reference_rate, bytes_read, reference, copy_ms);
        }
        const char *cells[] = {input,   student_text,   student_rate,  baseline_text,
                               speedup, reference_text, reference_rate};
        table_add_row(&speed->printed[t], cells);
    }
}

void print_rate_legend(const char *read, double copy_rate)
{
    printf("  rate: bytes of %s read per second, and its share of the bandwidth of a "
           "device-to-device copy timed in the same run (%.0f GB/s read + written on the last "
           "input): 100%% is as fast as the memory allows\n",
           read, copy_rate);
}
