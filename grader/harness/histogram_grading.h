/* Grading the text histogram labs (4-8): correctness on many texts with a diagnosis of what went
 * wrong, a text past 4 GiB, and the speed tables against the previous lab. */
#ifndef GRADER_HISTOGRAM_GRADING_H
#define GRADER_HISTOGRAM_GRADING_H

#include "histogram.h"
#include "inputs.h"
#include "speed_tables.h"

#include <stdbool.h>
#include <stdint.h>

/* The correctness texts, in groups: the edge sizes (0, 1, 31, 32, 33, 257 bytes, and 20
 * bytes not starting on a 16-byte boundary), every distribution at about 1 MB (a prime length),
 * the long and real ones (16 MiB + 3, 1 MB starting off a boundary, the shipped English text),
 * and, for the GPU's functions, 4099 bytes starting 0 to 15 bytes past a 16-byte boundary (a
 * head of every length before the first boundary, a body of 16-byte words and a tail). Each
 * group is one test, which checks every text of it and reports each wrong one: a test is a
 * process with a CUDA context of its own, and starting one took longer than the checks
 * themselves (histogram_grading.c lists the texts). */
enum text_group { SMALL_TEXTS, DISTRIBUTIONS, LONG_TEXTS, START_OFFSETS };

/* Runs function three times on each text of the group, on fresh poisoned output each time,
 * with guard bytes around the text and guard counters around the bins; fails the test with
 * the table of bins and the likely mistake for each text where a run was wrong, the guards were
 * touched or the text was modified. */
void check_histogram_group(const char *function_name, histogram_function *function,
                           enum text_group group);

/* The same on the student's --input file (the test is not asked for without one). */
void check_histogram_input_file(const char *function_name, histogram_function *function);

/* Defines the correctness tests of one histogram function: a test a group of texts, and one on
 * the file of --input. Where a text starts matters on the GPU only (a CPU function's texts are
 * copies): the start offsets are its group. */
#define HISTOGRAM_TESTS(suite, function)                                                     \
    TEXT_TESTS(suite, function, check_histogram_group, check_histogram_input_file,           \
               require_gpu, require_input_file_and_gpu)                                      \
    TEXT_GROUP_TEST(suite, function, start_offsets, START_OFFSETS, check_histogram_group,    \
                    require_gpu)

/* What HISTOGRAM_TESTS and HOST_HISTOGRAM_TESTS share: the checks they call, and the .init of
 * a group's test and of the --input file's (NULL: none). */
#define TEXT_TESTS(suite, function, check_group, check_file, group_init, file_init)          \
    TEXT_GROUP_TEST(suite, function, small_texts, SMALL_TEXTS, check_group, group_init)      \
    TEXT_GROUP_TEST(suite, function, distributions, DISTRIBUTIONS, check_group, group_init)  \
    TEXT_GROUP_TEST(suite, function, long_texts, LONG_TEXTS, check_group, group_init)        \
    GRADED_TEST(suite, your_input_file, .init = file_init, .description = OPTIONAL_TEST,      \
                .timeout = CORRECTNESS_TIMEOUT_S)                                            \
    {                                                                                        \
        check_file(#function, function);                                                     \
    }
#define TEXT_GROUP_TEST(suite, function, test_name, group, check_group, group_init)          \
    GRADED_TEST(suite, test_name, .init = group_init, .timeout = CORRECTNESS_TIMEOUT_S)       \
    {                                                                                        \
        check_group(#function, function, group);                                             \
    }

/* The sequential histograms of lab 4 work on host memory. */
typedef void host_histogram_function(const char *text, uint64_t length,
                                     unsigned long long histogram[HISTOGRAM_BINS]);

/* check_histogram_group and check_histogram_input_file for a CPU function: one run, guard
 * letters after the text. They need no GPU. */
void check_host_histogram_group(const char *function_name, host_histogram_function *function,
                                enum text_group group);
void check_host_histogram_input_file(const char *function_name,
                                     host_histogram_function *function);

/* HISTOGRAM_TESTS for a CPU function. */
#define HOST_HISTOGRAM_TESTS(suite, function)                                                \
    TEXT_TESTS(suite, function, check_host_histogram_group, check_host_histogram_input_file, \
               NULL, require_input_file)

/* A text of 2^32 + 257 bytes, built on the GPU, whose first bin holds more than 2^32 letters:
 * catches 32-bit indices and counters. Skips when the GPU has too little free memory. */
void check_histogram_past_4gib(const char *function_name, histogram_function *function);

/* Something to time: a histogram_function, one that takes a parameter (lab 6), one that takes
 * a context (CUB and its scratch memory), or a CPU function working on host memory. Exactly one
 * of the four is set. `student` marks the student's functions, timed alone in a phase of their
 * own (speed.h); `calls` is a timed run's calls (0: about TIMED_RUN_BYTES of input), the same for a function
 * and the reference it is scored against; a slow baseline's, one a run where its call is slow
 * (one_call_when_slow, speed.h); a reference that fills its runs (fills_runs, speed.h) makes
 * on each input as many as make a run of SPEED_RUN_MS, at most `calls`, and the student's
 * function scored against it the same. */
struct contender {
    char label[48];
    bool student;
    int calls;
    bool one_call_when_slow;
    bool fills_runs;
    histogram_function *function;
    void (*with_parameter)(const char *, uint64_t, unsigned long long *, unsigned int);
    unsigned int parameter;
    void (*with_context)(void *, const char *, uint64_t, unsigned long long *);
    void *context;
    void (*on_host)(const char *, uint64_t, unsigned long long *);
};


/* Times every contender on every timing input (each distribution and slices of the shipped
 * text, or only the student's --input file) by the phases of speed.h, and prints each table.
 * Every timed run's result is checked: a wrong one fails the test. */
void report_histogram_speed(uint64_t call_bytes, const struct contender *contenders, int count,
                            const struct speed_table *tables, int table_count);

/* Times contenders on one distribution and prints one row each: time, and speedup over
 * contenders[baseline]. For sweeping a parameter. */
void report_histogram_sweep(const char *title, const struct contender *contenders, int count,
                            int baseline, enum text_kind kind);

#endif
