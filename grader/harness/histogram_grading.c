#include "histogram_grading.h"

#include "bandwidth.h"
#include "compare.h"
#include "device.h"
#include "grading.h"
#include "guarded_runs.h"
#include "reference.h"
#include "repeated_text.h"
#include "report.h"
#include "speed_tables.h"
#include "timing.h"

#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bytes of GUARD_LETTER on both sides of the text: a kernel that reads past either end counts
 * them, and the diagnosis can say so. */
#define TEXT_GUARD_BYTES 4096
#define GUARD_LETTER 'z'
/* Counters around the seven bins, holding a known value: a write outside the bins changes one. */
#define BIN_GUARD_COUNTERS 64 /* a char's bin without a range test is -56 to 39: all land here */

static char *load_or_fail(const char *path, uint64_t *length)
{
    char *data = NULL, error[512];
    cr_assert(load_file(path, &data, length, error, sizeof error) == 0, "%s", error);
    return data;
}

static char *shipped_text(uint64_t *length)
{
    char path[4096];
    kit_data_path(SHIPPED_TEXT_FILE, path, sizeof path);
    return load_or_fail(path, length);
}

enum text_source {
    SOURCE_GENERATED,    /* generate_text(kind, seed, length) */
    SOURCE_SHIPPED_TEXT, /* the public-domain English text in grader/data */
    SOURCE_STUDENT_FILE, /* ./grade --input FILE */
};

/* One correctness text. */
struct text_case {
    const char *name;
    enum text_group group;
    enum text_source source;
    enum text_kind kind;
    uint64_t length;
    unsigned int offset; /* the text starts this many bytes past a 16-byte boundary */
};

/* Every correctness text, by group: the edge sizes, every distribution (prime or odd lengths),
 * texts that do not start on a 16-byte boundary (wide loads must cope) and the shipped text.
 * The start offsets' texts are letters only, so that a byte dropped at either end always shows:
 * at offset k a 16-byte-wide kernel meets a head of (16 - k) % 16 bytes and a tail of
 * (3 + k) % 16 (4099 = 16 x 256 + 3). The empty text and the one byte start off a boundary,
 * so that a head longer than the whole text (a length less its head wrapping round) shows.
 * A text's seed is the grading's plus its start offset: texts at different offsets differ, and
 * a function that answers one call with an earlier call's result fails. */
static const struct text_case TEXT_CASES[] = {
    {"empty_text", SMALL_TEXTS, SOURCE_GENERATED, TEXT_ENGLISH_LIKE, 0, 7},
    {"one_byte", SMALL_TEXTS, SOURCE_GENERATED, TEXT_UNIFORM_LETTERS, 1, 3},
    {"bytes_31", SMALL_TEXTS, SOURCE_GENERATED, TEXT_UNIFORM_LETTERS, 31, 0},
    {"bytes_32", SMALL_TEXTS, SOURCE_GENERATED, TEXT_UNIFORM_LETTERS, 32, 0},
    {"bytes_33", SMALL_TEXTS, SOURCE_GENERATED, TEXT_UNIFORM_LETTERS, 33, 0},
    {"bytes_257", SMALL_TEXTS, SOURCE_GENERATED, TEXT_ENGLISH_LIKE, 257, 0},
    {"bytes_20_starting_off_boundary", SMALL_TEXTS, SOURCE_GENERATED, TEXT_UNIFORM_LETTERS, 20, 9},
    {"english_like_prime", DISTRIBUTIONS, SOURCE_GENERATED, TEXT_ENGLISH_LIKE, 1000003, 0},
    {"uniform_letters", DISTRIBUTIONS, SOURCE_GENERATED, TEXT_UNIFORM_LETTERS, 999999, 0},
    {"random_bytes", DISTRIBUTIONS, SOURCE_GENERATED, TEXT_RANDOM_BYTES, 1000003, 0},
    {"one_letter", DISTRIBUTIONS, SOURCE_GENERATED, TEXT_ONE_LETTER, 1048579, 0},
    {"long_runs", DISTRIBUTIONS, SOURCE_GENERATED, TEXT_LONG_RUNS, 3000017, 0},
    {"short_runs", DISTRIBUTIONS, SOURCE_GENERATED, TEXT_SHORT_RUNS, 1000037, 0},
    {"no_letters", DISTRIBUTIONS, SOURCE_GENERATED, TEXT_NO_LETTERS, 65537, 0},
    {"english_like_16mib_odd", LONG_TEXTS, SOURCE_GENERATED, TEXT_ENGLISH_LIKE, (16u << 20) + 3, 0},
    {"english_like_starting_off_boundary", LONG_TEXTS, SOURCE_GENERATED, TEXT_ENGLISH_LIKE,
     1000033, 5},
    {"jargon_file", LONG_TEXTS, SOURCE_SHIPPED_TEXT, TEXT_ENGLISH_LIKE, 0, 0},
    {"offset_0", START_OFFSETS, SOURCE_GENERATED, TEXT_UNIFORM_LETTERS, 4099, 0},
    {"offset_1", START_OFFSETS, SOURCE_GENERATED, TEXT_UNIFORM_LETTERS, 4099, 1},
    {"offset_2", START_OFFSETS, SOURCE_GENERATED, TEXT_UNIFORM_LETTERS, 4099, 2},
    {"offset_3", START_OFFSETS, SOURCE_GENERATED, TEXT_UNIFORM_LETTERS, 4099, 3},
    {"offset_4", START_OFFSETS, SOURCE_GENERATED, TEXT_UNIFORM_LETTERS, 4099, 4},
    {"offset_5", START_OFFSETS, SOURCE_GENERATED, TEXT_UNIFORM_LETTERS, 4099, 5},
    {"offset_6", START_OFFSETS, SOURCE_GENERATED, TEXT_UNIFORM_LETTERS, 4099, 6},
    {"offset_7", START_OFFSETS, SOURCE_GENERATED, TEXT_UNIFORM_LETTERS, 4099, 7},
    {"offset_8", START_OFFSETS, SOURCE_GENERATED, TEXT_UNIFORM_LETTERS, 4099, 8},
    {"offset_9", START_OFFSETS, SOURCE_GENERATED, TEXT_UNIFORM_LETTERS, 4099, 9},
    {"offset_10", START_OFFSETS, SOURCE_GENERATED, TEXT_UNIFORM_LETTERS, 4099, 10},
    {"offset_11", START_OFFSETS, SOURCE_GENERATED, TEXT_UNIFORM_LETTERS, 4099, 11},
    {"offset_12", START_OFFSETS, SOURCE_GENERATED, TEXT_UNIFORM_LETTERS, 4099, 12},
    {"offset_13", START_OFFSETS, SOURCE_GENERATED, TEXT_UNIFORM_LETTERS, 4099, 13},
    {"offset_14", START_OFFSETS, SOURCE_GENERATED, TEXT_UNIFORM_LETTERS, 4099, 14},
    {"offset_15", START_OFFSETS, SOURCE_GENERATED, TEXT_UNIFORM_LETTERS, 4099, 15},
};
static const struct text_case INPUT_FILE_CASE = {"your_input_file", 0, SOURCE_STUDENT_FILE,
                                                 TEXT_ENGLISH_LIKE, 0, 0};

/* The case's text in host memory (malloc'ed). */
static char *case_text(const struct text_case *text_case, const struct grading_options *options,
                       uint64_t *length)
{
    switch (text_case->source) {
    case SOURCE_SHIPPED_TEXT:
        return shipped_text(length);
    case SOURCE_STUDENT_FILE:
        return load_or_fail(options->input_file, length);
    case SOURCE_GENERATED:
    default:
        *length = text_case->length;
        char *text = grading_malloc(*length);
        generate_text(text_case->kind, options->seed + text_case->offset, text, *length);
        return text;
    }
}

/* The text's guards: GUARD_LETTER around the text, counters around the seven bins. */
static const struct guard_policy TEXT_GUARDS = {HISTOGRAM_BINS, 1, GUARD_LETTER, TEXT_GUARD_BYTES,
                                                BIN_GUARD_COUNTERS};

/* What a run wrote outside the bins, for the test's message. */
static void wrote_outside(const struct guarded_outcome *outcome, const char *bins_name,
                          char *problem, size_t problem_size)
{
    snprintf(problem, problem_size,
             "it wrote outside the %d bins: the counter at %s[%d] changed. A bin "
             "index was out of range: check the letter test (0 <= c - 'a' < 26) and the "
             "bin arithmetic ((c - 'a') / 4)%s.",
             HISTOGRAM_BINS, bins_name, outcome->changed_counter,
             outcome->changed_counter == HISTOGRAM_BINS
                 ? ", and every loop over the bins (zeroing, committing): one that runs to "
                   "bin <= HISTOGRAM_BINS writes just past the last"
                 : "");
}

/* A function under test, on the GPU or the CPU: exactly one is set. */
struct text_function {
    histogram_function *gpu;
    host_histogram_function *host;
};

/* The guarded runs' call (guarded_runs.h): the context is a text_function. */
static void call_function(void *context, const void *text, uint64_t length,
                          unsigned long long *bins, int run)
{
    (void)run;
    const struct text_function *function = context;
    if (function->host)
        function->host(text, length, bins);
    else
        function->gpu(text, length, bins);
}

/* offset: where the text started for this function (a CPU function's copy starts on a
 * boundary, whatever the case's offset). */
static void describe_case(char *where, size_t size, const char *function_name,
                          const struct text_case *text_case, unsigned int offset,
                          const struct grading_options *options, uint64_t length)
{
    if (text_case->source == SOURCE_GENERATED && offset != 0)
        snprintf(where, size, "%s on %s (%s, %" PRIu64 " bytes starting %u bytes past a 16-byte "
                              "boundary, seed %" PRIu64 ")",
                 function_name, text_case->name, text_kind_name(text_case->kind), length,
                 offset, options->seed);
    else if (text_case->source == SOURCE_GENERATED)
        snprintf(where, size, "%s on %s (%s, %" PRIu64 " bytes, seed %" PRIu64 ")", function_name,
                 text_case->name, text_kind_name(text_case->kind), length, options->seed);
    else
        snprintf(where, size, "%s on %s (%" PRIu64 " bytes)", function_name,
                 text_case->source == SOURCE_STUDENT_FILE ? options->input_file : SHIPPED_TEXT_FILE,
                 length);
}

/* Fails the test with the table of bins and the likely mistake, if the runs were wrong; the
 * test goes on to its other texts. */
static void judge_runs(const char *where, const char *text, uint64_t length,
                       unsigned int start_offset, bool sequential,
                       const unsigned long long *expected, const unsigned long long *const *runs,
                       int run_count)
{
    struct histogram_evidence evidence = {text, length, expected, runs, run_count, GUARD_LETTER,
                                          start_offset, sequential};
    struct histogram_diagnosis diagnosis = diagnose_histogram(&evidence);
    if (diagnosis.mistake == MISTAKE_NONE)
        return;
    char table[1024];
    format_bin_table(table, sizeof table, expected, runs[diagnosis.wrong_run]);
    cr_expect_fail("%s: wrong histogram on run %d of %d\n%s  likely cause (%s): %s", where,
                   diagnosis.wrong_run + 1, run_count, table,
                   histogram_mistake_name(diagnosis.mistake), diagnosis.explanation);
}

/* Checks a function on one text: a CPU function once (where the text starts does not matter to
 * it: it reads a copy), a GPU function CHECK_RUNS times, from the case's start offset. */
static void check_case(const char *function_name, struct text_function function,
                       const struct text_case *text_case)
{
    struct grading_options options = grading_options();
    uint64_t length = 0;
    char *text = case_text(text_case, &options, &length);
    unsigned long long expected[HISTOGRAM_BINS];
    cpu_histogram(text, length, expected);

    const bool on_host = function.host != NULL;
    const unsigned int offset = on_host ? 0 : text_case->offset;
    struct guarded_outcome *outcome = grading_malloc(sizeof *outcome);
    const struct guarded_input input = {text, length, 0, 0, offset};
    if (on_host)
        guarded_run_on_host(&TEXT_GUARDS, &input, call_function, &function, outcome);
    else
        guarded_runs_on_gpu(&TEXT_GUARDS, &input, CHECK_RUNS, true, call_function, &function,
                            outcome);

    char where[256], problem[512];
    describe_case(where, sizeof where, function_name, text_case, offset, &options, length);
    const unsigned long long *runs[CHECK_RUNS];
    for (int run = 0; run < outcome->runs_done; run++)
        runs[run] = outcome->runs[run];
    if (!outcome->inside)
        wrote_outside(outcome, on_host ? "histogram" : "d_histogram", problem, sizeof problem);
    /* On the CPU a modified text is named first: the write outside the bins may come of it. */
    if (!outcome->input_unchanged && (on_host || outcome->inside))
        cr_expect_fail("%s: the text was modified%s", where,
                       on_host ? "; it is read-only."
                               : ". The input is read-only: count into the bins, never write "
                                 "to d_text.");
    else if (!outcome->inside)
        cr_expect_fail("%s: %s", where, problem);
    else
        judge_runs(where, text, length, offset, on_host, expected, runs, outcome->runs_done);
    free(outcome);
    free(text);
}

void check_histogram_group(const char *function_name, histogram_function *function,
                           enum text_group group)
{
    for (size_t c = 0; c < sizeof TEXT_CASES / sizeof TEXT_CASES[0]; c++)
        if (TEXT_CASES[c].group == group)
            check_case(function_name, (struct text_function){.gpu = function}, &TEXT_CASES[c]);
}

void check_histogram_input_file(const char *function_name, histogram_function *function)
{
    check_case(function_name, (struct text_function){.gpu = function}, &INPUT_FILE_CASE);
}

void check_host_histogram_group(const char *function_name, host_histogram_function *function,
                                enum text_group group)
{
    for (size_t c = 0; c < sizeof TEXT_CASES / sizeof TEXT_CASES[0]; c++)
        if (TEXT_CASES[c].group == group)
            check_case(function_name, (struct text_function){.host = function}, &TEXT_CASES[c]);
}

void check_host_histogram_input_file(const char *function_name,
                                     host_histogram_function *function)
{
    check_case(function_name, (struct text_function){.host = function}, &INPUT_FILE_CASE);
}

void check_histogram_past_4gib(const char *function_name, histogram_function *function)
{
    /* 2^32 + 1 'a's, then a 256-byte tail of every kind of byte. Past 2^32 a 32-bit index
     * wraps around and counts the start again; the first bin needs more than 32 bits. */
    const uint64_t letters_a = (1ull << 32) + 1, tail = 256, length = letters_a + tail;
    take_turn_with_gpu_memory(length);

    char tail_text[256];
    for (uint64_t i = 0; i < tail; i++)
        tail_text[i] = (char)(i * 7 + 3); /* every byte value once: letters, capitals, >= 0x80 */
    unsigned long long expected[HISTOGRAM_BINS];
    cpu_histogram(tail_text, tail, expected);
    expected[0] += letters_a;

    /* The letters are written on the GPU; the text is too large to copy back and compare. */
    struct guarded_outcome *outcome = grading_malloc(sizeof *outcome);
    const struct guarded_input input = {tail_text, tail, letters_a, 'a', 0};
    struct text_function under_test = {.gpu = function};
    guarded_runs_on_gpu(&TEXT_GUARDS, &input, 1, false, call_function, &under_test, outcome);
    char problem[512] = "";
    if (!outcome->inside)
        wrote_outside(outcome, "d_histogram", problem, sizeof problem);
    unsigned long long got[HISTOGRAM_BINS];
    memcpy(got, outcome->runs[0], sizeof got);
    free(outcome);
    cr_assert(problem[0] == '\0', "%s on a text of %" PRIu64 " bytes: %s", function_name, length,
              problem);
    if (!histograms_equal(got, expected)) {
        char table[1024];
        format_bin_table(table, sizeof table, expected, got);
        const char *cause = past_4gib_cause(got, expected);
        cr_assert_fail("%s on a text of %" PRIu64 " bytes (2^32 + 257: 2^32 + 1 'a's, then 256 "
                       "bytes of every value): wrong histogram\n%s  likely cause: %s",
                       function_name, length, table, cause);
    }
}

/* ---------------------------------------------------------------------------------------- */
/* Speed                                                                                     */
/* ---------------------------------------------------------------------------------------- */

/* A sequential CPU baseline is timed on the first bytes of the input only, and its time scaled
 * to the whole length: the CPU's time grows with the length alone, and timing it on all of a
 * large input took most of lab 4's grading. It is shown, never scored. */
#define CPU_SAMPLE_BYTES (1ull << 20)

/* The text workload: every distribution and the shipped text, or the student's --input file. */
struct text_policy {
    const struct grading_options *options;
    int only_kind; /* -1: every distribution and the shipped text */
    const char *file_text;
    uint64_t file_length;
};

static void open_text_input(const struct speed_workload *workload, int index, char *name,
                            size_t name_size, struct timed_source *source)
{
    const struct text_policy *policy = workload->policy;
    if (policy->file_text) {
        const char *slash = strrchr(policy->options->input_file, '/');
        snprintf(name, name_size, "%s", slash ? slash + 1 : policy->options->input_file);
        *source = timed_source_of_material(TIMED_LETTERS, TIMED_WHOLE, policy->file_text,
                                           policy->file_length);
    } else if (policy->only_kind >= 0 || index < TEXT_KIND_COUNT) {
        int kind = policy->only_kind >= 0 ? policy->only_kind : index;
        snprintf(name, name_size, "%s", text_kind_name((enum text_kind)kind));
        *source = timed_source_generated(TIMED_LETTERS, kind);
    } else {
        uint64_t length = 0;
        char *text = shipped_text(&length);
        snprintf(name, name_size, "jargon-file");
        *source = timed_source_of_material(TIMED_LETTERS, TIMED_SLICES, text, length);
        free(text);
    }
}

static void host_text_histogram(const void *text, uint64_t length, unsigned long long *result)
{
    cpu_histogram(text, length, result);
}

static struct speed_workload text_workload(struct text_policy *policy, uint64_t call_bytes)
{
    struct grading_options *options = (struct grading_options *)policy->options;
    call_bytes = timed_call_bytes(call_bytes);
    struct speed_workload workload = {
        .element_name = "text", .format = TIMED_LETTERS, .elements = call_bytes,
        .result_counters = HISTOGRAM_BINS, .default_calls = speed_default_calls(call_bytes),
        .result_initial_byte = POISON_BYTE, .input_count = TEXT_KIND_COUNT + 1,
        .open_input = open_text_input, .host_sample_elements = CPU_SAMPLE_BYTES,
        .host_histogram = host_text_histogram, .policy = policy};
    if (options->input_file) {
        policy->file_text = load_or_fail(options->input_file, &policy->file_length);
        workload.elements = policy->file_length;
        workload.input_count = 1;
        workload.default_calls = speed_default_calls(policy->file_length);
    }
    return workload;
}

static void call_text_contender(const void *context, const void *input, uint64_t length,
                                unsigned long long *bins)
{
    const struct contender *contender = context;
    if (contender->on_host)
        contender->on_host(input, length, bins);
    else if (contender->with_parameter)
        contender->with_parameter(input, length, bins, contender->parameter);
    else if (contender->with_context)
        contender->with_context(contender->context, input, length, bins);
    else
        contender->function(input, length, bins);
}

static void timed_text_contenders(const struct contender *contenders, int count,
                                  struct timed_contender *timed)
{
    for (int c = 0; c < count; c++)
        timed[c] = (struct timed_contender){.label = contenders[c].label,
                                            .student = contenders[c].student,
                                            .on_host = contenders[c].on_host != NULL,
                                            .calls = contenders[c].calls,
                                            .one_call_when_slow = contenders[c].one_call_when_slow,
                                            .fills_runs = contenders[c].fills_runs,
                                            .call = call_text_contender,
                                            .context = &contenders[c]};
}

/* What the inputs were, in a line or two for the tables. */
static void describe_inputs(const struct text_policy *policy, uint64_t length, char *out,
                            size_t size)
{
    if (!policy->file_text) {
        snprintf(out, size, "  inputs: %" PRIu64 " MiB a call of %s%s, made fresh for every run "
                 "(seed %" PRIu64 "); more than the L2 cache holds\n", length >> 20,
                 policy->only_kind >= 0 ? text_kind_name((enum text_kind)policy->only_kind)
                                        : "each distribution and of slices of the Jargon File",
                 policy->only_kind >= 0 ? " text" : "", policy->options->seed);
        return;
    }
    int l2_bytes = gpu_facts().l2_cache_bytes;
    int written = snprintf(out, size, "  input: %s (%" PRIu64 " bytes), with %u bytes of every %u "
                           "KiB replaced by random ones, new for every run\n",
                           policy->options->input_file, length, TIMED_REPLACED_PER_SEGMENT,
                           TIMED_SEGMENT_ELEMENTS >> 10);
    if (length < (uint64_t)l2_bytes && written > 0 && (size_t)written < size)
        snprintf(out + written, size - (size_t)written,
                 "  note: this file fits in the GPU's L2 cache, so these times measure the cache, "
                 "not memory; use a file larger than %d MB for figures that hold for big texts\n",
                 l2_bytes >> 20);
}

void report_histogram_speed(uint64_t call_bytes, const struct contender *contenders, int count,
                            const struct speed_table *tables, int table_count)
{
    struct grading_options options = grading_options();
    struct text_policy policy = {.options = &options, .only_kind = -1};
    struct speed_workload workload = text_workload(&policy, call_bytes);
    cr_assert(count <= MAX_SPEED_CONTENDERS, "report_histogram_speed: at most %d contenders",
              MAX_SPEED_CONTENDERS);
    struct timed_contender timed[MAX_SPEED_CONTENDERS];
    timed_text_contenders(contenders, count, timed);
    speed_tables_share_calls(tables, table_count, timed, count);
    static struct speed_results results;
    time_contenders(&workload, timed, count, &results);
    char description[1024];
    describe_inputs(&policy, workload.elements, description, sizeof description);
    speed_tables_report(&workload, timed, count, &results, tables, table_count, description);
    for (int t = 0; t < table_count; t++)
        if (contenders[tables[t].baseline].on_host) {
            printf("  CPU time (the baseline of \"%s\"): the fastest of its timed runs on the "
                   "input's first %llu MiB, scaled to the input's length, not the median: the "
                   "host CPU is shared, others' load only adds time, and its speed drifts, so the "
                   "speedup over the CPU repeats less well than the GPU times. Speed points "
                   "compare you with the reference on the GPU.\n",
                   tables[t].title, CPU_SAMPLE_BYTES >> 20);
            break;
        }
    free((void *)policy.file_text);
    fflush(stdout);
}

void report_histogram_sweep(const char *title, const struct contender *contenders, int count,
                            int baseline, enum text_kind kind)
{
    struct grading_options options = grading_options();
    struct text_policy policy = {.options = &options, .only_kind = (int)kind};
    struct speed_workload workload = text_workload(&policy, TIMED_CALL_BYTES);
    /* One distribution: the sweep is for choosing a parameter, not for a grade. */
    workload.input_count = 1;
    struct timed_contender timed[MAX_TIMED_CONTENDERS];
    cr_assert(count < MAX_TIMED_CONTENDERS, "report_histogram_sweep: too many contenders");
    timed_text_contenders(contenders, count, timed);
    static struct speed_results results;
    time_contenders(&workload, timed, count, &results);

    printf("\n%s\n", title);
    print_timing_method(&workload, timed, count);
    char description[1024];
    describe_inputs(&policy, workload.elements, description, sizeof description);
    printf("%s", description);
    char speedup_header[2 * TABLE_CELL_SIZE];
    snprintf(speedup_header, sizeof speedup_header, "speedup over %s", contenders[baseline].label);
    const char *headers[] = {"variant", "median time", "rate (% of copy)", speedup_header};
    struct table table;
    table_init(&table, 4, headers);
    for (int c = 0; c < count; c++) {
        char time_text[32], rate[48], speedup[32];
        double ms = results.contender_ms[c], baseline_ms = results.contender_ms[baseline];
        format_ms(time_text, sizeof time_text, ms);
        format_rate(rate, sizeof rate, workload.elements, ms, results.copy_ms[0]);
        format_speedup(speedup, sizeof speedup, baseline_ms, ms);
        const char *cells[] = {contenders[c].label, time_text, rate, speedup};
        table_add_row(&table, cells);
    }
    table_print(stdout, &table);
    free((void *)policy.file_text);
    fflush(stdout);
}
