/* make bench: every lab's reference, CUB's DeviceHistogram and a device-to-device copy, timed
 * in one process on the same large inputs, alternating run by run, in two studies: the letter
 * histogram of labs 4-8 (every distribution and the shipped English text) and the 256-bin image
 * histogram of lab 9 (every image kind). Prints a table per input and writes bench.md,
 * bench.csv and a chart of both, bench.svg, to the output folder.
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
#include "image_reference.h"
#include "images.h"
#include "inputs.h"
#include "compare.h"
#include "reference.h"
#include "timed_inputs.h"
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

#define MAX_INPUTS 8
#define MAX_CONTENDERS 8


static void usage(FILE *out)
{
    fprintf(out, "usage: bench [--bytes N] [--runs N] [--seed N] [--out DIR]\n"
                 "  --bytes N  size of every input (default 1 GiB; at least 1 MiB)\n"
                 "  --runs N   timed runs per variant, the median is reported (default 10, at "
                 "least 10)\n"
                 "  --seed N   seed of the generated inputs (default 20261122), under a key drawn\n"
                 "             anew every run, as the grader's timed inputs are\n"
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

/* What is timed in each study: the labs' references in order, then CUB (a NULL function). The
 * copy is timed beside them. The labs' rows are the bench lines of the lab manifest
 * (grader/labs.mk), made into contenders.h by the build. */
struct letter_contender {
    const char *label;
    histogram_function *function;
};
#define BENCH_LETTERS(label, function) {label, function},
#define BENCH_PIXELS(label, function)
static const struct letter_contender letter_contenders[] = {
#include "contenders.h"
    {"CUB DeviceHistogram", NULL},
};
#undef BENCH_LETTERS
#undef BENCH_PIXELS
struct image_contender {
    const char *label;
    byte_image_histogram *function;
};
#define BENCH_LETTERS(label, function)
#define BENCH_PIXELS(label, function) {label, function},
static const struct image_contender image_contenders[] = {
#include "contenders.h"
    {"CUB HistogramEven (256 bins)", NULL},
};
#undef BENCH_LETTERS
#undef BENCH_PIXELS
#define LETTER_CONTENDERS (int)(sizeof letter_contenders / sizeof letter_contenders[0])
#define IMAGE_CONTENDERS (int)(sizeof image_contenders / sizeof image_contenders[0])
_Static_assert(LETTER_CONTENDERS <= MAX_CONTENDERS && IMAGE_CONTENDERS <= MAX_CONTENDERS,
               "more bench lines in grader/labs.mk than a study has room for: raise MAX_CONTENDERS");

struct measurement {
    double copy_ms;
    double ms[MAX_CONTENDERS];
};

/* One study: its contenders, timed on each of its inputs. */
struct study {
    const char *name;          /* in the CSV */
    const char *title;         /* in bench.md and the chart */
    const char *compared_with; /* the header of the speedup column */
    int input_count, contender_count;
    int compared_count; /* contenders 1 .. compared_count-1 get a speedup over the one before */
    char input_names[MAX_INPUTS][32];
    const char *labels[MAX_CONTENDERS];
    struct measurement measurements[MAX_INPUTS];
};

/* One contender's run on one input: a letter or an image function, or CUB for either. */
struct contender_run {
    histogram_function *letters;
    byte_image_histogram *pixels;
    struct cub_histogram *cub_letters;
    struct cub_byte_histogram *cub_pixels;
    const char *d_input;
    uint64_t length;
    unsigned long long *d_bins;
    int bins;
    const unsigned long long *expected;
};

static void run_contender(void *context)
{
    struct contender_run *run = context;
    if (run->letters)
        run->letters(run->d_input, run->length, run->d_bins);
    else if (run->pixels)
        run->pixels((const uint8_t *)run->d_input, run->length, run->d_bins);
    else if (run->cub_letters)
        cub_histogram_run(run->cub_letters, run->d_input, run->length, run->d_bins);
    else
        cub_byte_histogram_run(run->cub_pixels, (const uint8_t *)run->d_input, run->length,
                               run->d_bins);
}

static bool contender_result_is_right(void *context)
{
    struct contender_run *run = context;
    unsigned long long got[PIXEL_VALUES];
    size_t bytes = run->bins * sizeof *got;
    CUDA_CHECK(cudaMemcpy(got, run->d_bins, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemset(run->d_bins, 0xA5, bytes));
    return memcmp(got, run->expected, bytes) == 0;
}

/* Times the copy and every run of the study on its input `input` (already in runs[c].d_input);
 * false if a result was wrong. */
static bool measure(const struct bench_options *options, struct study *study, int input,
                    struct contender_run *runs, char *d_copy)
{
    struct timed_variant variants[MAX_CONTENDERS + 1];
    struct device_copy copy = {runs[0].d_input, d_copy, options->bytes};
    for (int c = 0; c < study->contender_count; c++) {
        CUDA_CHECK(cudaMalloc((void **)&runs[c].d_bins, runs[c].bins * sizeof *runs[c].d_bins));
        variants[c] = (struct timed_variant){.name = study->labels[c],
                                             .run = run_contender,
                                             .result_is_right = contender_result_is_right,
                                             .context = &runs[c]};
    }
    variants[study->contender_count] =
        (struct timed_variant){.name = "copy", .run = run_device_copy, .context = &copy};
    time_alternating(variants, study->contender_count + 1, 1, options->runs);

    bool all_right = true;
    struct measurement *measurement = &study->measurements[input];
    for (int c = 0; c < study->contender_count; c++) {
        measurement->ms[c] = variants[c].time_ms;
        if (variants[c].wrong_results > 0) {
            fprintf(stderr, "bench: %s gave a wrong histogram in %d of its runs on %s\n",
                    study->labels[c], variants[c].wrong_results, study->input_names[input]);
            all_right = false;
        }
        CUDA_CHECK(cudaFree(runs[c].d_bins));
    }
    measurement->copy_ms = variants[study->contender_count].time_ms;
    return all_right;
}

static void print_input_table(const struct bench_options *options, const struct study *study,
                              int input);

/* ---------------------------------------------------------------------------------------- */

/* The kit's data file `name`, whole. */
static char *load_data_file(const char *name, uint64_t *length)
{
    char path[4096], error[512], *data = NULL;
    kit_data_path(name, path, sizeof path);
    if (load_file(path, &data, length, error, sizeof error) != 0) {
        fprintf(stderr, "bench: %s\n", error);
        exit(EXIT_FAILURE);
    }
    return data;
}

/* Fills d_input[0, bytes) from source as the grader makes a timed input (common/timed_inputs.h:
 * no block repeated), and gives its histogram. */
static void make_input(const struct timed_source *source, const struct bench_options *options,
                       char *d_input, unsigned long long *expected)
{
    unsigned int bins = timed_format_bins(source->format);
    unsigned long long *d_expected = NULL;
    CUDA_CHECK(cudaMalloc((void **)&d_expected, bins * sizeof *d_expected));
    uint64_t stride = (options->bytes + 255) / 256 * 256;
    make_timed_inputs(source, options->seed, d_input, stride, 1, options->bytes, d_expected);
    CUDA_CHECK(cudaMemcpy(expected, d_expected, bins * sizeof *d_expected, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_expected));
}

/* Letter input `index`: a distribution, or slices of the shipped text. */
static void make_letter_input(int index, const struct bench_options *options, char *d_text,
                              char *name, size_t name_size,
                              unsigned long long expected[HISTOGRAM_BINS])
{
    struct timed_source source;
    if (index < TEXT_KIND_COUNT) {
        snprintf(name, name_size, "%s", text_kind_name((enum text_kind)index));
        source = timed_source_generated(TIMED_LETTERS, index);
    } else {
        snprintf(name, name_size, "jargon-file");
        uint64_t length = 0;
        char *text = load_data_file(SHIPPED_TEXT_FILE, &length);
        source = timed_source_of_material(TIMED_LETTERS, TIMED_SLICES, text, length);
        free(text);
    }
    make_input(&source, options, d_text, expected);
    timed_source_destroy(&source);
}

static bool run_letter_study(const struct bench_options *options, char *d_input, char *d_copy,
                             struct study *study)
{
    *study = (struct study){.name = "letters",
                            .title = "Letter histogram (labs 4-8): 7 bins of lowercase letters",
                            .compared_with = "speedup over the lab before",
                            .input_count = TEXT_KIND_COUNT + 1,
                            .contender_count = LETTER_CONTENDERS,
                            .compared_count = LETTER_CONTENDERS - 1};
    for (int c = 0; c < LETTER_CONTENDERS; c++)
        study->labels[c] = letter_contenders[c].label;
    struct cub_histogram *cub = cub_histogram_create(options->bytes);
    bool all_right = true;
    for (int i = 0; i < study->input_count; i++) {
        unsigned long long expected[HISTOGRAM_BINS];
        make_letter_input(i, options, d_input, study->input_names[i],
                          sizeof study->input_names[i], expected);
        struct contender_run runs[MAX_CONTENDERS];
        for (int c = 0; c < LETTER_CONTENDERS; c++)
            runs[c] = (struct contender_run){.letters = letter_contenders[c].function,
                                             .cub_letters = cub,
                                             .d_input = d_input,
                                             .length = options->bytes,
                                             .bins = HISTOGRAM_BINS,
                                             .expected = expected};
        all_right &= measure(options, study, i, runs, d_copy);
        print_input_table(options, study, i);
    }
    cub_histogram_destroy(cub);
    return all_right;
}

static bool run_image_study(const struct bench_options *options, char *d_input, char *d_copy,
                            struct study *study)
{
    *study = (struct study){.name = "images",
                            .title = "Image histogram (lab 9): 256 bins of 8-bit pixels",
                            .compared_with = "speedup over the private kernel",
                            .input_count = IMAGE_KIND_COUNT,
                            .contender_count = IMAGE_CONTENDERS,
                            .compared_count = IMAGE_CONTENDERS - 1};
    for (int c = 0; c < IMAGE_CONTENDERS; c++)
        study->labels[c] = image_contenders[c].label;
    uint8_t *photo;
    uint32_t width, height;
    char path[4096], error[512];
    kit_data_path(PHOTO_FILE_NAME, path, sizeof path);
    if (load_pgm(path, &photo, &width, &height, error, sizeof error) != 0) {
        fprintf(stderr, "bench: %s\n", error);
        exit(EXIT_FAILURE);
    }
    struct cub_byte_histogram *cub = cub_byte_histogram_create(options->bytes);
    bool all_right = true;
    for (int i = 0; i < study->input_count; i++) {
        unsigned long long expected[PIXEL_VALUES];
        snprintf(study->input_names[i], sizeof study->input_names[i], "%s",
                 image_kind_name((enum image_kind)i));
        struct timed_source source =
            i == IMAGE_PHOTO ? timed_source_of_material(TIMED_BYTE_PIXELS, TIMED_SLICES, photo,
                                                        (uint64_t)width * height)
                             : timed_source_generated(TIMED_BYTE_PIXELS, i);
        make_input(&source, options, d_input, expected);
        timed_source_destroy(&source);
        struct contender_run runs[MAX_CONTENDERS];
        for (int c = 0; c < IMAGE_CONTENDERS; c++)
            runs[c] = (struct contender_run){.pixels = image_contenders[c].function,
                                             .cub_pixels = cub,
                                             .d_input = d_input,
                                             .length = options->bytes,
                                             .bins = PIXEL_VALUES,
                                             .expected = expected};
        all_right &= measure(options, study, i, runs, d_copy);
        print_input_table(options, study, i);
    }
    cub_byte_histogram_destroy(cub);
    free(photo);
    return all_right;
}

/* ---------------------------------------------------------------------------------------- */

#define STUDY_COUNT 2

struct results {
    struct study studies[STUDY_COUNT];
    char device[300];
    char date[32];
};

static void fill_input_table(struct table *table, const struct bench_options *options,
                             const struct study *study, int input)
{
    const char *headers[] = {"variant", "median time", "GB/s", "% of copy", study->compared_with};
    const struct measurement *m = &study->measurements[input];
    table_init(table, 5, headers);
    for (int c = 0; c <= study->contender_count; c++) {
        bool is_copy = c == study->contender_count;
        double ms = is_copy ? m->copy_ms : m->ms[c];
        uint64_t moved = is_copy ? 2 * options->bytes : options->bytes;
        char time_text[32], rate[32], percent[32] = "100%", speedup[32] = "";
        format_ms(time_text, sizeof time_text, ms);
        snprintf(rate, sizeof rate, "%.0f", gigabytes_per_second(moved, ms));
        if (!is_copy)
            snprintf(percent, sizeof percent, "%.1f%%",
                     percent_of_copy_bandwidth(options->bytes, ms, options->bytes, m->copy_ms));
        if (c > 0 && c < study->compared_count)
            format_speedup(speedup, sizeof speedup, m->ms[c - 1], ms);
        const char *cells[] = {is_copy ? "copy (read + write)" : study->labels[c], time_text,
                               rate, percent, speedup};
        table_add_row(table, cells);
    }
}

static void print_input_table(const struct bench_options *options, const struct study *study,
                              int input)
{
    struct table table;
    fill_input_table(&table, options, study, input);
    printf("\n%s: %s\n", study->name, study->input_names[input]);
    table_print(stdout, &table);
    fflush(stdout);
}

static void fill_summary_table(struct table *table, const struct bench_options *options,
                               const struct study *study)
{
    const char *headers[MAX_INPUTS + 1] = {"% of copy bandwidth"};
    for (int i = 0; i < study->input_count; i++)
        headers[i + 1] = study->input_names[i];
    table_init(table, study->input_count + 1, headers);
    for (int c = 0; c < study->contender_count; c++) {
        char cells_text[MAX_INPUTS][32];
        const char *cells[MAX_INPUTS + 1] = {study->labels[c]};
        for (int i = 0; i < study->input_count; i++) {
            const struct measurement *m = &study->measurements[i];
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
    fprintf(out, "Inputs of %" PRIu64 " MiB already on the GPU, made as the grader makes its timed "
                 "inputs (common/timed_inputs.h; seed %" PRIu64 ", under a key drawn for the "
                 "run); each figure the "
                 "median of %d timed runs after one warm-up, every variant and the copy "
                 "alternating run by run in one process; every run's histogram checked. GB/s "
                 "counts the bytes read (a copy: read and written).\n",
            options->bytes >> 20, options->seed, options->runs);
    for (int s = 0; s < STUDY_COUNT; s++) {
        const struct study *study = &results->studies[s];
        fprintf(out, "\n## %s\n\n", study->title);
        struct table table;
        fill_summary_table(&table, options, study);
        table_print(out, &table);
        for (int i = 0; i < study->input_count; i++) {
            fprintf(out, "\n### %s\n\n", study->input_names[i]);
            fill_input_table(&table, options, study, i);
            table_print(out, &table);
        }
    }
    return ferror(out) ? -1 : 0;
}

static int write_csv(FILE *out, const struct bench_options *options, const struct results *results)
{
    fprintf(out, "study,input,variant,median_ms,gb_per_s,percent_of_copy\n");
    for (int s = 0; s < STUDY_COUNT; s++) {
        const struct study *study = &results->studies[s];
        for (int i = 0; i < study->input_count; i++) {
            const struct measurement *m = &study->measurements[i];
            for (int c = 0; c < study->contender_count; c++)
                fprintf(out, "%s,%s,%s,%.6f,%.2f,%.2f\n", study->name, study->input_names[i],
                        study->labels[c], m->ms[c], gigabytes_per_second(options->bytes, m->ms[c]),
                        percent_of_copy_bandwidth(options->bytes, m->ms[c], options->bytes,
                                                  m->copy_ms));
            fprintf(out, "%s,%s,copy (read + write),%.6f,%.2f,100.00\n", study->name,
                    study->input_names[i], m->copy_ms,
                    gigabytes_per_second(2 * options->bytes, m->copy_ms));
        }
    }
    return ferror(out) ? -1 : 0;
}

static int write_chart(FILE *out, const struct bench_options *options,
                       const struct results *results)
{
    static double values[STUDY_COUNT][MAX_CONTENDERS * MAX_INPUTS];
    static const char *series_names[STUDY_COUNT][MAX_INPUTS];
    static char titles[STUDY_COUNT][400], references[STUDY_COUNT][64];
    struct bar_chart charts[STUDY_COUNT];
    for (int s = 0; s < STUDY_COUNT; s++) {
        const struct study *study = &results->studies[s];
        double copy_rate = 0;
        for (int i = 0; i < study->input_count; i++) {
            series_names[s][i] = study->input_names[i];
            copy_rate += gigabytes_per_second(2 * options->bytes, study->measurements[i].copy_ms) /
                         study->input_count;
        }
        for (int c = 0; c < study->contender_count; c++)
            for (int i = 0; i < study->input_count; i++)
                values[s][c * study->input_count + i] =
                    gigabytes_per_second(options->bytes, study->measurements[i].ms[c]);
        snprintf(titles[s], sizeof titles[s], "%s, %" PRIu64 " MiB, GB/s read: %s, %s",
                 study->title, options->bytes >> 20, results->device, results->date);
        snprintf(references[s], sizeof references[s], "copy: %.0f GB/s", copy_rate);
        charts[s] = (struct bar_chart){titles[s],         "GB/s (log scale)",
                                       study->contender_count, study->labels,
                                       study->input_count, series_names[s],
                                       values[s],         copy_rate,
                                       references[s]};
    }
    return write_bar_charts_svg(out, charts, STUDY_COUNT);
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
    char limited[128] = "";
    if (gpu.shared_memory_limited)
        snprintf(limited, sizeof limited, ", its kernels held to %zu KB of shared memory a block "
                 "(KIT_SHARED_MEMORY_PER_BLOCK)", gpu.shared_memory_per_block >> 10);
    snprintf(results.device, sizeof results.device, "%s (%d SMs, %d MB L2%s)", gpu.name,
             gpu.multiprocessors, gpu.l2_cache_bytes >> 20, limited);
    printf("make bench on %s; %" PRIu64 " MiB inputs, median of %d runs\n", results.device,
           options.bytes >> 20, options.runs);

    char *d_input = NULL, *d_copy = NULL;
    CUDA_CHECK(cudaMalloc((void **)&d_input, options.bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_copy, options.bytes));
    bool all_right = run_letter_study(&options, d_input, d_copy, &results.studies[0]);
    all_right &= run_image_study(&options, d_input, d_copy, &results.studies[1]);
    CUDA_CHECK(cudaFree(d_input));
    CUDA_CHECK(cudaFree(d_copy));

    for (int s = 0; s < STUDY_COUNT; s++) {
        struct table summary;
        fill_summary_table(&summary, &options, &results.studies[s]);
        printf("\n%s\n", results.studies[s].title);
        table_print(stdout, &summary);
    }
    bool written = write_file(options.out, "bench.md", &options, &results, write_report) &&
                   write_file(options.out, "bench.csv", &options, &results, write_csv) &&
                   write_file(options.out, "bench.svg", &options, &results, write_chart);
    if (!all_right)
        fprintf(stderr, "bench: some results were wrong (above); their times mean nothing\n");
    return all_right && written ? 0 : 1;
}
