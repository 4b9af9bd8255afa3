#include "speed_tables.h"

#include "bandwidth.h"
#include "grading.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

void format_rate(char *out, size_t size, uint64_t bytes, double ms, double copy_ms)
{
    snprintf(out, size, "%.0f GB/s (%.1f%%)", gigabytes_per_second(bytes, ms),
             percent_of_copy_bandwidth(bytes, ms, bytes, copy_ms));
}

/* Turns "1234 GB/s (56.7%)" into "1234 GB/s (56.7%; kernels alone 98.1%)" where the trusted
 * contender and the copy have a time on the GPU alone (speed.h kernel_ms). */
static void append_kernels_alone(char *rate, size_t size, uint64_t bytes, double kernel_ms,
                                 double copy_kernel_ms)
{
    size_t length = strlen(rate);
    if (kernel_ms <= 0.0 || copy_kernel_ms <= 0.0 || length == 0 || rate[length - 1] != ')')
        return;
    snprintf(rate + length - 1, size - (length - 1), "; kernels alone %.1f%%)",
             percent_of_copy_bandwidth(bytes, kernel_ms, bytes, copy_kernel_ms));
}

/* Whether any row of the table shows a reference's kernels alone. */
static bool shows_kernels_alone(const struct speed_table *table, const struct speed_results *results)
{
    for (int i = 0; table->reference >= 0 && i < results->input_count; i++)
        if (results->kernel_ms[i * MAX_TIMED_CONTENDERS + table->reference] > 0.0 &&
            results->copy_kernel_ms[i] > 0.0)
            return true;
    return false;
}

static void fill_table(struct table *printed, const struct speed_table *table,
                       const struct timed_contender *contenders, const struct speed_results *results,
                       uint64_t bytes, bool scored)
{
    bool has_reference = table->reference >= 0;
    const char *headers[] = {"input",
                             contenders[table->student].label,
                             "rate (% of copy)",
                             contenders[table->baseline].label,
                             "speedup",
                             has_reference ? contenders[table->reference].label : "",
                             "reference rate (% of copy)"};
    table_init(printed, has_reference ? 7 : 5, headers);
    for (int i = 0; i < results->input_count; i++) {
        const double *times = &results->contender_ms[i * MAX_TIMED_CONTENDERS];
        double student = times[table->student], baseline = times[table->baseline];
        char student_text[32], student_rate[48], baseline_text[32], speedup[32],
            reference_text[32] = "", reference_rate[TABLE_CELL_SIZE] = "";
        format_ms(student_text, sizeof student_text, student);
        format_rate(student_rate, sizeof student_rate, bytes, student, results->copy_ms[i]);
        format_ms(baseline_text, sizeof baseline_text, baseline);
        format_speedup(speedup, sizeof speedup, baseline, student);
        if (has_reference) {
            double reference = times[table->reference];
            if (scored)
                record_performance(results->input_names[i], student, reference);
            format_ms(reference_text, sizeof reference_text, reference);
            format_rate(reference_rate, sizeof reference_rate, bytes, reference,
                        results->copy_ms[i]);
            append_kernels_alone(reference_rate, sizeof reference_rate, bytes,
                                 results->kernel_ms[i * MAX_TIMED_CONTENDERS + table->reference],
                                 results->copy_kernel_ms[i]);
        }
        const char *cells[] = {results->input_names[i], student_text, student_rate, baseline_text,
                               speedup, reference_text, reference_rate};
        table_add_row(printed, cells);
    }
}

/* Every contender table t names is one of the count. */
static void require_table_contenders(const struct speed_table *table, int t, int count)
{
    const int named[] = {table->student, table->baseline, table->reference};
    for (int column = 0; column < 3; column++)
        cr_assert(named[column] < count && (column > 0 || named[column] >= 0),
                  "grader defect: table %d names contender %d of %d", t, named[column], count);
}

void speed_tables_share_calls(const struct speed_table *tables, int table_count,
                              struct timed_contender *contenders, int count)
{
    for (int t = 0; t < table_count; t++) {
        require_table_contenders(&tables[t], t, count);
        if (tables[t].reference >= 0 && contenders[tables[t].reference].fills_runs)
            contenders[tables[t].student].calls_from = tables[t].reference + 1;
    }
}

void speed_tables_report(const struct speed_workload *workload,
                         const struct timed_contender *contenders, int count,
                         const struct speed_results *results, const struct speed_table *tables,
                         int table_count, const char *inputs_description)
{
    cr_assert(table_count <= MAX_SPEED_TABLES, "speed_tables_report: at most %d tables",
              MAX_SPEED_TABLES);
    uint64_t bytes = workload->elements * timed_format_element_bytes(workload->format);
    const double last_copy_ms = results->copy_ms[results->input_count - 1];
    for (int t = 0; t < table_count; t++) {
        require_table_contenders(&tables[t], t, count);
        /* Identical code must read 1.00x: the scored pair makes the same calls a run, on every
         * input (speed.h one_call_when_slow: a baseline's only; fills_runs: the student's
         * function then takes the reference's, calls_from). */
        if (tables[t].reference >= 0)
            cr_assert(contenders[tables[t].student].calls == contenders[tables[t].reference].calls &&
                          !contenders[tables[t].student].one_call_when_slow &&
                          !contenders[tables[t].reference].one_call_when_slow &&
                          (contenders[tables[t].reference].fills_runs
                               ? contenders[tables[t].student].calls_from == tables[t].reference + 1
                               : contenders[tables[t].student].calls_from == 0),
                      "grader defect: %s and %s make different calls a run",
                      contenders[tables[t].student].label, contenders[tables[t].reference].label);
        struct table printed;
        fill_table(&printed, &tables[t], contenders, results, bytes, t == 0);
        printf("\n%s\n", tables[t].title);
        /* The method line names the contenders of this table alone. */
        struct timed_contender shown[3];
        int shown_count = 0;
        for (int column = 0; column < 3; column++) {
            int c = column == 0 ? tables[t].student : column == 1 ? tables[t].baseline
                                                                  : tables[t].reference;
            if (c >= 0)
                shown[shown_count++] = contenders[c];
        }
        print_timing_method(workload, shown, shown_count);
        printf("%s", inputs_description);
        printf("  rate: bytes of %s read per second, and its share of the bandwidth of a "
               "device-to-device copy timed in the same grading (%.0f GB/s read + written on the "
               "last input): 100%% is as fast as the memory allows\n",
               workload->element_name, gigabytes_per_second(2 * bytes, last_copy_ms));
        if (shows_kernels_alone(&tables[t], results))
            printf("  kernels alone: the reference's calls timed on the GPU by CUDA events that "
                   "the references' worker records before its first call and after its last, on "
                   "runs of their own that are not scored, against the copy's timed alike: its "
                   "share without a run's fixed cost (waking "
                   "the worker, the GPU's switch between processes, the answer and the reading), "
                   "which both rates above include alike. Your functions are timed by the "
                   "grader's clock alone: nothing in their process carries a time\n");
        table_print(stdout, &printed);
    }
    fflush(stdout);
}
