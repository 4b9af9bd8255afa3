/* make bench: every lab's reference, CUB's DeviceHistogram and a device-to-device copy, timed
 * in one process on the same large inputs (every distribution and the shipped English text),
 * alternating run by run. Prints a table per input and writes bench.md, bench.csv and a chart,
 * bench.svg, to the output folder.
 *
 * usage: bench [--bytes N] [--runs N] [--seed N] [--out DIR]
 * Exit status: 0 done, 1 a wrong result or a file that could not be written, 2 bad usage,
 * 3 no GPU. */
#define _POSIX_C_SOURCE 200809L
#include "bandwidth.h"
#include "chart.h"
#include "options.h"
#include "cub_histogram.h"
#include "cuda_check.h"
#include "device.h"
#include "histogram.h"
#include "inputs.h"
#include "compare.h"
#include "reference.h"
#include "repeated_text.h"
#include "references.h"
#include "report.h"
#include "timing.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define INPUT_COUNT (TEXT_KIND_COUNT + 1) /* every distribution, and the shipped text */
#define BLOCK_BYTES (64ull << 20)        /* generated once, then repeated on the GPU */
#define SHIPPED_TEXT "jargon-file-4.4.7.txt"

#ifndef KIT_DATA_DIR
#define KIT_DATA_DIR "grader/data"
#endif

static void usage(FILE *out)
{
    fprintf(out, "usage: bench [--bytes N] [--runs N] [--seed N] [--out DIR]\n"
                 "  --bytes N  size of every input (default 1 GiB; at least 1 MiB)\n"
                 "  --runs N   timed runs per variant, the median is reported (default 10, at "
                 "least 10)\n"
                 "  --seed N   seed of the generated inputs (default 20261122)\n"
                 "  --out DIR  where bench.md, bench.csv and bench.svg go (default build/bench)\n");
}

/* Returns false, having said why, on a bad command line. */
static bool parse_options(int argc, char **argv, struct bench_options *options)
{
    *options = (struct bench_options){1ull << 30, TIMING_MIN_RUNS, 20261122, "build/bench"};
    const struct bench_option_rules rules = {"bench", 1u << 20, UINT64_MAX, usage};
    return parse_bench_options(argc, argv, &rules, options);
}

/* ---------------------------------------------------------------------------------------- */

static void lab6_reference_as_chosen(const char *d_text, uint64_t length,
                                     unsigned long long *d_histogram)
{
    reference_lab6_histogram_contiguous(d_text, length, d_histogram,
                                        reference_lab6_chosen_chars_per_thread());
}

/* What is timed: each lab's reference in order, then CUB. The copy is timed beside them. */
struct contender {
    const char *label;
    histogram_function *function; /* NULL for CUB */
};
static const struct contender contenders[] = {
    {"lab 4 (global atomics)", reference_lab4_histogram_atomic},
    {"lab 5 (shared privatized)", reference_lab5_histogram_private_shared},
    {"lab 6 (coarsened)", lab6_reference_as_chosen},
    {"lab 7 (aggregated)", reference_lab7_histogram_aggregated},
    {"lab 8 (challenge)", reference_lab8_histogram},
    {"CUB DeviceHistogram", NULL},
};
#define CONTENDER_COUNT (int)(sizeof contenders / sizeof contenders[0])
#define LAB_COUNT (CONTENDER_COUNT - 1) /* all but CUB compare with the lab before */

struct contender_run {
    const struct contender *contender;
    struct cub_histogram *cub;
    const char *d_text;
    uint64_t length;
    unsigned long long *d_bins;
    const unsigned long long *expected;
};

static void run_contender(void *context)
{
    struct contender_run *run = context;
    if (run->contender->function)
        run->contender->function(run->d_text, run->length, run->d_bins);
    else
        cub_histogram_run(run->cub, run->d_text, run->length, run->d_bins);
}

static bool contender_result_is_right(void *context)
{
    struct contender_run *run = context;
    unsigned long long got[HISTOGRAM_BINS];
    CUDA_CHECK(cudaMemcpy(got, run->d_bins, sizeof got, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemset(run->d_bins, 0xA5, sizeof got));
    return histograms_equal(got, run->expected);
}

/* ---------------------------------------------------------------------------------------- */

/* Fills d_text[0, bytes) with input `index` (a distribution, or the shipped text) and returns
 * its histogram: a block made on the host, repeated on the GPU by doubling copies. */
static void make_input(int index, const struct bench_options *options, char *d_text,
                       char *name, size_t name_size, unsigned long long expected[HISTOGRAM_BINS])
{
    uint64_t block_length = options->bytes < BLOCK_BYTES ? options->bytes : BLOCK_BYTES;
    char *block = NULL;
    if (index < TEXT_KIND_COUNT) {
        snprintf(name, name_size, "%s", text_kind_name((enum text_kind)index));
        block = malloc(block_length);
        if (!block) {
            fprintf(stderr, "bench: out of host memory\n");
            exit(EXIT_FAILURE);
        }
        generate_text((enum text_kind)index, options->seed, block, block_length);
    } else {
        snprintf(name, name_size, "jargon-file");
        char path[4096], error[512];
        const char *data_dir = getenv("GRADE_DATA_DIR");
        snprintf(path, sizeof path, "%s/%s", data_dir && *data_dir ? data_dir : KIT_DATA_DIR,
                 SHIPPED_TEXT);
        if (load_file(path, &block, &block_length, error, sizeof error) != 0) {
            fprintf(stderr, "bench: %s\n", error);
            exit(EXIT_FAILURE);
        }
        if (block_length > options->bytes)
            block_length = options->bytes;
    }
    repeat_on_device(d_text, options->bytes, block, block_length);
    histogram_of_repeated(block, block_length, options->bytes, expected);
    free(block);
}

struct measurement {
    double copy_ms;
    double ms[CONTENDER_COUNT];
};

/* Times the copy and every contender on the input in d_text; false if a result was wrong. */
static bool measure(const struct bench_options *options, const char *d_text, char *d_copy,
                    struct cub_histogram *cub, const unsigned long long *expected,
                    const char *input_name, struct measurement *measurement)
{
    struct contender_run runs[CONTENDER_COUNT];
    struct timed_variant variants[CONTENDER_COUNT + 1];
    struct device_copy copy = {d_text, d_copy, options->bytes};
    for (int c = 0; c < CONTENDER_COUNT; c++) {
        runs[c] = (struct contender_run){&contenders[c], cub, d_text,
                                         options->bytes, NULL, expected};
        CUDA_CHECK(cudaMalloc((void **)&runs[c].d_bins, HISTOGRAM_BINS * sizeof *runs[c].d_bins));
        variants[c] = (struct timed_variant){.name = contenders[c].label,
                                             .run = run_contender,
                                             .result_is_right = contender_result_is_right,
                                             .context = &runs[c]};
    }
    variants[CONTENDER_COUNT] = (struct timed_variant){.name = "copy", .run = run_device_copy,
                                                       .context = &copy};
    time_alternating(variants, CONTENDER_COUNT + 1, 1, options->runs);

    bool all_right = true;
    for (int c = 0; c < CONTENDER_COUNT; c++) {
        measurement->ms[c] = variants[c].time_ms;
        if (variants[c].wrong_results > 0) {
            fprintf(stderr, "bench: %s gave a wrong histogram in %d of its runs on %s\n",
                    contenders[c].label, variants[c].wrong_results, input_name);
            all_right = false;
        }
        CUDA_CHECK(cudaFree(runs[c].d_bins));
    }
    measurement->copy_ms = variants[CONTENDER_COUNT].time_ms;
    return all_right;
}

/* ---------------------------------------------------------------------------------------- */

struct results {
    char input_names[INPUT_COUNT][32];
    struct measurement measurements[INPUT_COUNT];
    char device[300];
    char date[32];
};

static void fill_input_table(struct table *table, const struct bench_options *options,
                             const struct measurement *m)
{
    const char *headers[] = {"variant", "median time", "GB/s", "% of copy",
                             "speedup over the lab before"};
    table_init(table, 5, headers);
    for (int c = 0; c <= CONTENDER_COUNT; c++) {
        bool is_copy = c == CONTENDER_COUNT;
        double ms = is_copy ? m->copy_ms : m->ms[c];
        uint64_t moved = is_copy ? 2 * options->bytes : options->bytes;
        char time_text[32], rate[32], percent[32] = "100%", speedup[32] = "";
        format_ms(time_text, sizeof time_text, ms);
        snprintf(rate, sizeof rate, "%.0f", gigabytes_per_second(moved, ms));
        if (!is_copy)
            snprintf(percent, sizeof percent, "%.1f%%",
                     percent_of_copy_bandwidth(options->bytes, ms, options->bytes, m->copy_ms));
        if (c > 0 && c < LAB_COUNT)
            format_speedup(speedup, sizeof speedup, m->ms[c - 1], ms);
        const char *cells[] = {is_copy ? "copy (read + write)" : contenders[c].label, time_text,
                               rate, percent, speedup};
        table_add_row(table, cells);
    }
}

static void fill_summary_table(struct table *table, const struct bench_options *options,
                               const struct results *results)
{
    const char *headers[INPUT_COUNT + 1] = {"% of copy bandwidth"};
    for (int i = 0; i < INPUT_COUNT; i++)
        headers[i + 1] = results->input_names[i];
    table_init(table, INPUT_COUNT + 1, headers);
    for (int c = 0; c < CONTENDER_COUNT; c++) {
        char cells_text[INPUT_COUNT][32];
        const char *cells[INPUT_COUNT + 1] = {contenders[c].label};
        for (int i = 0; i < INPUT_COUNT; i++) {
            const struct measurement *m = &results->measurements[i];
            snprintf(cells_text[i], sizeof cells_text[i], "%.1f%%",
                     percent_of_copy_bandwidth(options->bytes, m->ms[c], options->bytes,
                                               m->copy_ms));
            cells[i + 1] = cells_text[i];
        }
        table_add_row(table, cells);
    }
}

static int write_report(FILE *out, const struct bench_options *options,
                        const struct results *results)
{
    fprintf(out, "# make bench: %s, %s\n\n", results->device, results->date);
    fprintf(out, "Inputs of %" PRIu64 " MiB already on the GPU (seed %" PRIu64 "); each figure the "
                 "median of %d timed runs after one warm-up, every variant and the copy "
                 "alternating run by run in one process; every run's histogram checked. GB/s "
                 "counts the bytes read (a copy: read and written).\n\n",
            options->bytes >> 20, options->seed, options->runs);
    struct table table;
    fill_summary_table(&table, options, results);
    table_print(out, &table);
    for (int i = 0; i < INPUT_COUNT; i++) {
        fprintf(out, "\n## %s\n\n", results->input_names[i]);
        fill_input_table(&table, options, &results->measurements[i]);
        table_print(out, &table);
    }
    return ferror(out) ? -1 : 0;
}

static int write_csv(FILE *out, const struct bench_options *options, const struct results *results)
{
    fprintf(out, "input,variant,median_ms,gb_per_s,percent_of_copy\n");
    for (int i = 0; i < INPUT_COUNT; i++) {
        const struct measurement *m = &results->measurements[i];
        for (int c = 0; c < CONTENDER_COUNT; c++)
            fprintf(out, "%s,%s,%.6f,%.2f,%.2f\n", results->input_names[i], contenders[c].label,
                    m->ms[c], gigabytes_per_second(options->bytes, m->ms[c]),
                    percent_of_copy_bandwidth(options->bytes, m->ms[c], options->bytes,
                                              m->copy_ms));
        fprintf(out, "%s,copy (read + write),%.6f,%.2f,100.00\n", results->input_names[i],
                m->copy_ms, gigabytes_per_second(2 * options->bytes, m->copy_ms));
    }
    return ferror(out) ? -1 : 0;
}

static int write_chart(FILE *out, const struct bench_options *options,
                       const struct results *results)
{
    double values[CONTENDER_COUNT * INPUT_COUNT], copy_rate = 0;
    const char *group_names[CONTENDER_COUNT], *series_names[INPUT_COUNT];
    for (int i = 0; i < INPUT_COUNT; i++) {
        series_names[i] = results->input_names[i];
        copy_rate += gigabytes_per_second(2 * options->bytes, results->measurements[i].copy_ms) /
                     INPUT_COUNT;
    }
    for (int c = 0; c < CONTENDER_COUNT; c++) {
        group_names[c] = contenders[c].label;
        for (int i = 0; i < INPUT_COUNT; i++)
            values[c * INPUT_COUNT + i] =
                gigabytes_per_second(options->bytes, results->measurements[i].ms[c]);
    }
    char title[400], reference[64];
    snprintf(title, sizeof title, "Letter histogram of %" PRIu64 " MiB, GB/s read: %s, %s",
             options->bytes >> 20, results->device, results->date);
    snprintf(reference, sizeof reference, "copy: %.0f GB/s", copy_rate);
    struct bar_chart chart = {title, "GB/s (log scale)", CONTENDER_COUNT, group_names,
                              INPUT_COUNT, series_names, values, copy_rate, reference};
    return write_bar_chart_svg(out, &chart);
}

/* Writes one output file with writer; false, having said why, if it could not. */
static bool write_file(const char *dir, const char *name, const struct bench_options *options,
                       const struct results *results,
                       int (*writer)(FILE *, const struct bench_options *, const struct results *))
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *out = fopen(path, "w");
    if (!out) {
        fprintf(stderr, "bench: cannot write %s: %s\n", path, strerror(errno));
        return false;
    }
    int status = writer(out, options, results);
    if (fclose(out) != 0 || status != 0) {
        fprintf(stderr, "bench: could not finish writing %s\n", path);
        return false;
    }
    printf("wrote %s\n", path);
    return true;
}

int main(int argc, char **argv)
{
    struct bench_options options;
    if (!parse_options(argc, argv, &options))
        return 2;
    if (mkdir(options.out, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "bench: cannot create %s: %s\n", options.out, strerror(errno));
        return 1;
    }
    char reason[256];
    if (!gpu_available(reason, sizeof reason)) {
        fprintf(stderr, "bench: %s\n", reason);
        return 3;
    }
    struct gpu_facts gpu = gpu_facts();
    if (gpu.free_memory_bytes < 2 * options.bytes + (256ull << 20)) {
        fprintf(stderr, "bench: the GPU has %zu MiB free; --bytes %" PRIu64 " needs %" PRIu64
                        " MiB (the input and a copy of it)\n",
                gpu.free_memory_bytes >> 20, options.bytes, (2 * options.bytes >> 20) + 256);
        return 1;
    }

    static struct results results;
    time_t now = time(NULL);
    strftime(results.date, sizeof results.date, "%Y-%m-%d", localtime(&now));
    snprintf(results.device, sizeof results.device, "%s (%d SMs, %d MB L2)", gpu.name,
             gpu.multiprocessors, gpu.l2_cache_bytes >> 20);
    printf("make bench on %s; %" PRIu64 " MiB inputs, median of %d runs\n", results.device,
           options.bytes >> 20, options.runs);

    char *d_text = NULL, *d_copy = NULL;
    CUDA_CHECK(cudaMalloc((void **)&d_text, options.bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_copy, options.bytes));
    struct cub_histogram *cub = cub_histogram_create(options.bytes);
    bool all_right = true;
    for (int i = 0; i < INPUT_COUNT; i++) {
        unsigned long long expected[HISTOGRAM_BINS];
        make_input(i, &options, d_text, results.input_names[i], sizeof results.input_names[i],
                   expected);
        all_right &= measure(&options, d_text, d_copy, cub, expected, results.input_names[i],
                             &results.measurements[i]);
        struct table table;
        fill_input_table(&table, &options, &results.measurements[i]);
        printf("\n%s\n", results.input_names[i]);
        table_print(stdout, &table);
        fflush(stdout);
    }
    cub_histogram_destroy(cub);
    CUDA_CHECK(cudaFree(d_text));
    CUDA_CHECK(cudaFree(d_copy));

    struct table summary;
    fill_summary_table(&summary, &options, &results);
    printf("\n");
    table_print(stdout, &summary);
    bool written = write_file(options.out, "bench.md", &options, &results, write_report) &&
                   write_file(options.out, "bench.csv", &options, &results, write_csv) &&
                   write_file(options.out, "bench.svg", &options, &results, write_chart);
    if (!all_right)
        fprintf(stderr, "bench: some results were wrong (above); their times mean nothing\n");
    return all_right && written ? 0 : 1;
}
