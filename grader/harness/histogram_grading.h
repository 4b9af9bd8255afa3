/* Grading the histogram labs (4-7): correctness on many texts with a diagnosis of what went
 * wrong, a text past 4 GiB, and the speed tables against the previous lab. */
#ifndef GRADER_HISTOGRAM_GRADING_H
#define GRADER_HISTOGRAM_GRADING_H

#include "histogram.h"
#include "inputs.h"

#include <stdbool.h>
#include <stdint.h>

enum text_source {
    SOURCE_GENERATED,    /* generate_text(kind, seed, length) */
    SOURCE_SHIPPED_TEXT, /* the public-domain English text in grader/data */
    SOURCE_STUDENT_FILE, /* ./grade --input FILE; the test skips without one */
};

/* One correctness input. Plain data (no pointers): Criterion hands it to a fresh process. */
struct text_case {
    char name[48];
    enum text_source source;
    enum text_kind kind;
    uint64_t length;
    unsigned int offset; /* the text starts this many bytes past a 16-byte boundary */
};

/* The correctness inputs every histogram function is graded on: the edge sizes, a prime
 * length, every distribution, texts that do not start on a 16-byte boundary (wide loads must
 * cope), the shipped text and the student's own file.
 * X(test_name, source, kind, length, offset) */
#define HISTOGRAM_TEXT_CASES(X)                                                 \
    X(empty_text, SOURCE_GENERATED, TEXT_ENGLISH_LIKE, 0, 0)                    \
    X(one_byte, SOURCE_GENERATED, TEXT_UNIFORM_LETTERS, 1, 0)                   \
    X(bytes_31, SOURCE_GENERATED, TEXT_UNIFORM_LETTERS, 31, 0)                  \
    X(bytes_32, SOURCE_GENERATED, TEXT_UNIFORM_LETTERS, 32, 0)                  \
    X(bytes_33, SOURCE_GENERATED, TEXT_UNIFORM_LETTERS, 33, 0)                  \
    X(bytes_257, SOURCE_GENERATED, TEXT_ENGLISH_LIKE, 257, 0)                   \
    X(english_like_prime, SOURCE_GENERATED, TEXT_ENGLISH_LIKE, 1000003, 0)      \
    X(uniform_letters, SOURCE_GENERATED, TEXT_UNIFORM_LETTERS, 999999, 0)       \
    X(random_bytes, SOURCE_GENERATED, TEXT_RANDOM_BYTES, 1000003, 0)            \
    X(one_letter, SOURCE_GENERATED, TEXT_ONE_LETTER, 1048579, 0)                \
    X(long_runs, SOURCE_GENERATED, TEXT_LONG_RUNS, 3000017, 0)                  \
    X(short_runs, SOURCE_GENERATED, TEXT_SHORT_RUNS, 1000037, 0)                \
    X(no_letters, SOURCE_GENERATED, TEXT_NO_LETTERS, 65537, 0)                  \
    X(english_like_16mib_odd, SOURCE_GENERATED, TEXT_ENGLISH_LIKE, (16u << 20) + 3, 0) \
    X(bytes_20_starting_off_boundary, SOURCE_GENERATED, TEXT_UNIFORM_LETTERS, 20, 9) \
    X(english_like_starting_off_boundary, SOURCE_GENERATED, TEXT_ENGLISH_LIKE, 1000033, 5) \
    X(jargon_file, SOURCE_SHIPPED_TEXT, TEXT_ENGLISH_LIKE, 0, 0)                \
    X(your_input_file, SOURCE_STUDENT_FILE, TEXT_ENGLISH_LIKE, 0, 0)

/* Defines one Criterion test per text case for one histogram function. */
#define HISTOGRAM_TEST(suite, function, test_name, source, kind, length, offset)          \
    GRADED_TEST(suite, test_name,                                                         \
                .init = source == SOURCE_STUDENT_FILE ? require_input_file_and_gpu         \
                                                      : require_gpu,                       \
                .description = source == SOURCE_STUDENT_FILE ? OPTIONAL_TEST : "",           \
                .timeout = CORRECTNESS_TIMEOUT_S)                                         \
    {                                                                                     \
        const struct text_case text_case = {#test_name, source, kind, length, offset};   \
        check_histogram_function(#function, function, &text_case);                        \
    }

/* Runs function three times on the case's text, on fresh poisoned output each time, with
 * guard bytes around the text and guard counters around the bins; then fails the test with
 * the table of bins and the likely mistake if any run was wrong, the guards were touched or
 * the text was modified. */
void check_histogram_function(const char *function_name, histogram_function *function,
                              const struct text_case *text_case);

/* The sequential histograms of lab 4 work on host memory. */
typedef void host_histogram_function(const char *text, uint64_t length,
                                     unsigned long long histogram[HISTOGRAM_BINS]);

/* Like HISTOGRAM_TEST, for a CPU function: runs without a GPU. */
#define HOST_HISTOGRAM_TEST(suite, function, test_name, source, kind, length, offset) \
    GRADED_TEST(suite, test_name, .timeout = CORRECTNESS_TIMEOUT_S,                    \
                .description = source == SOURCE_STUDENT_FILE ? OPTIONAL_TEST : "")     \
    {                                                                                  \
        const struct text_case text_case = {#test_name, source, kind, length, offset}; \
        check_host_histogram_function(#function, function, &text_case);         \
    }

/* check_histogram_function for a CPU function: one run, guard letters after the text. */
void check_host_histogram_function(const char *function_name, host_histogram_function *function,
                                   const struct text_case *text_case);

/* A text of 2^32 + 257 bytes, built on the GPU, whose first bin holds more than 2^32 letters:
 * catches 32-bit indices and counters. Skips when the GPU has too little free memory. */
void check_histogram_past_4gib(const char *function_name, histogram_function *function);

/* Something to time: a histogram_function, one that takes a parameter (lab 6), one that takes
 * a context (CUB and its scratch memory), or a CPU function working on host memory. Exactly one
 * of the four is set. */
struct contender {
    char label[48];
    histogram_function *function;
    void (*with_parameter)(const char *, uint64_t, unsigned long long *, unsigned int);
    unsigned int parameter;
    void (*with_context)(void *, const char *, uint64_t, unsigned long long *);
    void *context;
    void (*on_host)(const char *, uint64_t, unsigned long long *);
};

/* A table of per-input rows comparing contenders[student] with contenders[baseline] and
 * contenders[reference] (-1: no reference column). */
struct speed_table {
    const char *title;
    int student, baseline, reference;
};

/* Times every contender on every timing input (each distribution, the shipped text repeated,
 * or only the student's --input file), alternating, and prints each table. Every timed run's
 * result is checked: a wrong one fails the test. */
void report_histogram_speed(const struct contender *contenders, int count,
                            const struct speed_table *tables, int table_count);

/* Times contenders on one distribution and prints one row each: time, and speedup over
 * contenders[baseline]. For sweeping a parameter. */
void report_histogram_sweep(const char *title, const struct contender *contenders, int count,
                            int baseline, enum text_kind kind);

#endif
