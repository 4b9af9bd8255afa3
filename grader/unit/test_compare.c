/* The diagnosis: each typical mistake, simulated on the CPU, must be named as such. */
#include "compare.h"
#include "inputs.h"
#include "reference.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#define LENGTH 100003

struct scenario {
    char *text;
    uint64_t length;
    unsigned long long expected[HISTOGRAM_BINS];
};

static struct scenario english(void)
{
    struct scenario s = {malloc(LENGTH), LENGTH, {0}};
    generate_text(TEXT_ENGLISH_LIKE, 99, s.text, LENGTH);
    cpu_histogram(s.text, LENGTH, s.expected);
    return s;
}

/* start_offset: the text starts that many bytes past a 16-byte boundary. */
static enum histogram_mistake diagnose_as(const struct scenario *s,
                                          const unsigned long long *const *runs, int run_count,
                                          unsigned int start_offset, bool sequential,
                                          char *explanation)
{
    struct histogram_evidence evidence = {s->text, s->length, s->expected, runs, run_count, 'z',
                                          start_offset, sequential};
    struct histogram_diagnosis d = diagnose_histogram(&evidence);
    if (explanation)
        strcpy(explanation, d.explanation);
    return d.mistake;
}

static enum histogram_mistake diagnose_at(const struct scenario *s,
                                          const unsigned long long *const *runs, int run_count,
                                          unsigned int start_offset, char *explanation)
{
    return diagnose_as(s, runs, run_count, start_offset, false, explanation);
}

static enum histogram_mistake diagnose(const struct scenario *s,
                                       const unsigned long long *const *runs, int run_count,
                                       char *explanation)
{
    return diagnose_at(s, runs, run_count, 0, explanation);
}

static enum histogram_mistake diagnose_one(const struct scenario *s, const unsigned long long *got)
{
    const unsigned long long *runs[1] = {got};
    return diagnose(s, runs, 1, NULL);
}

#define EXPECT_MISTAKE(got, want) \
    cr_expect_eq(got, want, "diagnosed %s, expected %s", histogram_mistake_name(got), \
                 histogram_mistake_name(want))

Test(diagnosis, right_answers_are_right)
{
    struct scenario s = english();
    const unsigned long long *runs[3] = {s.expected, s.expected, s.expected};
    EXPECT_MISTAKE(diagnose(&s, runs, 3, NULL), MISTAKE_NONE);
    free(s.text);
}

Test(diagnosis, results_that_change_between_runs_are_a_race)
{
    struct scenario s = english();
    unsigned long long first[HISTOGRAM_BINS], second[HISTOGRAM_BINS];
    memcpy(first, s.expected, sizeof first);
    memcpy(second, s.expected, sizeof second);
    first[2] -= 3;
    second[2] -= 5;
    const unsigned long long *runs[3] = {s.expected, first, second};
    char explanation[512];
    EXPECT_MISTAKE(diagnose(&s, runs, 3, explanation), MISTAKE_UNSTABLE);
    cr_expect(strstr(explanation, "race"), "%s", explanation);
    free(s.text);
}

Test(diagnosis, all_zero_is_nothing_counted)
{
    struct scenario s = english();
    unsigned long long got[HISTOGRAM_BINS] = {0};
    EXPECT_MISTAKE(diagnose_one(&s, got), MISTAKE_NOTHING_COUNTED);
    free(s.text);
}

Test(diagnosis, garbage_left_in_the_bins_is_not_zeroed)
{
    struct scenario s = english();
    unsigned long long got[HISTOGRAM_BINS];
    for (int bin = 0; bin < HISTOGRAM_BINS; bin++)
        got[bin] = s.expected[bin] + 0xA5A5A5A5A5A5A5A5ull;
    EXPECT_MISTAKE(diagnose_one(&s, got), MISTAKE_NOT_ZEROED);
    free(s.text);
}

Test(diagnosis, a_commit_done_by_every_thread_multiplies)
{
    struct scenario s = english();
    unsigned long long got[HISTOGRAM_BINS];
    for (int bin = 0; bin < HISTOGRAM_BINS; bin++)
        got[bin] = s.expected[bin] * 256;
    char explanation[512];
    const unsigned long long *runs[1] = {got};
    EXPECT_MISTAKE(diagnose(&s, runs, 1, explanation), MISTAKE_MULTIPLIED);
    cr_expect(strstr(explanation, "256 times"), "%s", explanation);
    free(s.text);
}

Test(diagnosis, counting_the_guard_after_the_text_is_reading_past_the_end)
{
    struct scenario s = english();
    unsigned long long got[HISTOGRAM_BINS];
    memcpy(got, s.expected, sizeof got);
    got[6] += 45; /* the 'z's the grader puts after the text */
    EXPECT_MISTAKE(diagnose_one(&s, got), MISTAKE_READ_PAST_END);
    free(s.text);
}

/* A text of one letter in bin y-z, the bin of the 'z's the grader puts around a text. */
static struct scenario one_letter_in_the_guards_bin(void)
{
    struct scenario s = {malloc(LENGTH), LENGTH, {0}};
    for (uint64_t seed = 1;; seed++) {
        generate_text(TEXT_ONE_LETTER, seed, s.text, LENGTH);
        if (histogram_bin_of(s.text[0]) == HISTOGRAM_BINS - 1)
            break;
    }
    cpu_histogram(s.text, LENGTH, s.expected);
    return s;
}

Test(diagnosis, a_read_past_the_end_of_one_letter_is_named_both_ways_on_the_gpu)
{
    /* i <= length counts one 'z' more: on a text of 'y' or 'z' alone this is also 2 blocks
     * counting the first half, so a GPU function hears of both causes. */
    struct scenario s = one_letter_in_the_guards_bin();
    unsigned long long got[HISTOGRAM_BINS];
    memcpy(got, s.expected, sizeof got);
    got[HISTOGRAM_BINS - 1] += 1;
    const unsigned long long *runs[1] = {got};
    char explanation[512];
    EXPECT_MISTAKE(diagnose(&s, runs, 1, explanation), MISTAKE_BLOCK_OFFSET_MISSING);
    cr_expect(strstr(explanation, "bytes past its end"), "%s", explanation);
    /* A CPU function has no blocks: only the read past the end is named. */
    EXPECT_MISTAKE(diagnose_as(&s, runs, 1, 0, true, explanation), MISTAKE_READ_PAST_END);
    cr_expect(strstr(explanation, "before the start"), "%s", explanation);
    cr_expect(!strstr(explanation, "blockIdx"), "%s", explanation);
    free(s.text);
}

Test(diagnosis, a_sequential_functions_counts_are_never_blamed_on_a_commit_loop)
{
    /* One letter a bin, and one 'z' more: by the numbers a commit loop that added bin y-z
     * twice, but a CPU function has no commit loop. */
    struct scenario s = {malloc(7), 7, {0}};
    memcpy(s.text, "aeimquy", 7);
    cpu_histogram(s.text, s.length, s.expected);
    unsigned long long got[HISTOGRAM_BINS];
    memcpy(got, s.expected, sizeof got);
    got[HISTOGRAM_BINS - 1] += 1;
    const unsigned long long *runs[1] = {got};
    char explanation[512];
    EXPECT_MISTAKE(diagnose(&s, runs, 1, explanation), MISTAKE_COMMITTED_UNEVENLY);
    EXPECT_MISTAKE(diagnose_as(&s, runs, 1, 0, true, explanation), MISTAKE_READ_PAST_END);
    free(s.text);
}

Test(diagnosis, bins_not_zeroed_are_named_when_each_run_had_its_own_poison)
{
    /* The grader poisons the bins with another byte on every run: runs that disagree, each
     * off by its own amount in every bin, are bins never zeroed, not a race. */
    struct scenario s = english();
    unsigned long long first[HISTOGRAM_BINS], second[HISTOGRAM_BINS];
    for (int bin = 0; bin < HISTOGRAM_BINS; bin++) {
        first[bin] = s.expected[bin] + 0xA5A5A5A5A5A5A5A5ull;
        second[bin] = s.expected[bin] + 0xC3C3C3C3C3C3C3C3ull;
    }
    const unsigned long long *runs[2] = {first, second};
    char explanation[512];
    EXPECT_MISTAKE(diagnose(&s, runs, 2, explanation), MISTAKE_NOT_ZEROED);
    /* Nothing counted stays nothing counted, whatever the expected bins hold. */
    unsigned long long zeros[HISTOGRAM_BINS] = {0};
    const unsigned long long *zero_run[1] = {zeros};
    EXPECT_MISTAKE(diagnose(&s, zero_run, 1, explanation), MISTAKE_NOTHING_COUNTED);
    free(s.text);
}

Test(diagnosis, a_missing_last_block_is_the_tail)
{
    struct scenario s = english();
    unsigned long long got[HISTOGRAM_BINS];
    cpu_histogram(s.text, LENGTH / 256 * 256, got); /* the partial last block dropped */
    char explanation[512];
    const unsigned long long *runs[1] = {got};
    EXPECT_MISTAKE(diagnose(&s, runs, 1, explanation), MISTAKE_TAIL_MISSING);
    cr_expect(strstr(explanation, "first 99840 of 100003"), "%s", explanation);
    free(s.text);
}

Test(diagnosis, a_skipped_block_0_is_the_head)
{
    struct scenario s = english();
    unsigned long long got[HISTOGRAM_BINS];
    cpu_histogram(s.text + 256, LENGTH - 256, got);
    char explanation[512];
    const unsigned long long *runs[1] = {got};
    EXPECT_MISTAKE(diagnose(&s, runs, 1, explanation), MISTAKE_HEAD_MISSING);
    cr_expect(strstr(explanation, "blockIdx.x > 0"), "%s", explanation);
    free(s.text);
}

Test(diagnosis, a_head_before_the_first_16_byte_boundary_is_named_as_such)
{
    struct scenario s = {malloc(LENGTH), LENGTH, {0}}; /* letters only: every byte counts */
    generate_text(TEXT_UNIFORM_LETTERS, 7, s.text, LENGTH);
    cpu_histogram(s.text, LENGTH, s.expected);
    unsigned long long got[HISTOGRAM_BINS];
    const unsigned long long *runs[1] = {got};
    char explanation[512];
    for (unsigned int offset = 13; offset < 16; offset++) {
        cpu_histogram(s.text + (16 - offset), LENGTH - (16 - offset), got);
        EXPECT_MISTAKE(diagnose_at(&s, runs, 1, offset, explanation), MISTAKE_HEAD_MISSING);
        cr_expect(strstr(explanation, "before the first boundary"), "%s", explanation);
    }
    free(s.text);
}

Test(diagnosis, a_tail_after_the_last_16_byte_boundary_is_named_as_such)
{
    struct scenario s = english(); /* 100003 bytes: a tail of 3 after the last boundary */
    unsigned long long got[HISTOGRAM_BINS];
    const unsigned long long *runs[1] = {got};
    char explanation[512];
    cpu_histogram(s.text, LENGTH - 3, got);
    EXPECT_MISTAKE(diagnose(&s, runs, 1, explanation), MISTAKE_TAIL_MISSING);
    cr_expect(strstr(explanation, "after the last 16-byte boundary"), "%s", explanation);
    /* Starting 14 bytes past a boundary, the tail is 1 byte. */
    cpu_histogram(s.text, LENGTH - 1, got);
    EXPECT_MISTAKE(diagnose_at(&s, runs, 1, 14, explanation), MISTAKE_TAIL_MISSING);
    cr_expect(strstr(explanation, "last 1 bytes"), "%s", explanation);
    free(s.text);
}

/* Counts text as a buggy kernel would, with `counted` deciding which extra bytes slip in. */
static void count_with_extra(const struct scenario *s, int (*extra_bin)(unsigned char),
                             unsigned long long *got)
{
    memcpy(got, s->expected, HISTOGRAM_BINS * sizeof *got);
    for (uint64_t i = 0; i < s->length; i++) {
        int bin = extra_bin((unsigned char)s->text[i]);
        if (bin >= 0)
            got[bin]++;
    }
}

static int high_byte_bin(unsigned char byte) { return byte >= 0x80 ? byte % HISTOGRAM_BINS : -1; }
static int capital_bin(unsigned char byte) { return byte >= 'A' && byte <= 'Z' ? (byte - 'A') / 4 : -1; }
static int above_z_bin(unsigned char byte) { return byte == '{' || byte == '|' ? 6 : -1; }
static int digit_bin(unsigned char byte) { return byte >= '0' && byte <= '9' ? 0 : -1; }

static struct scenario random_bytes(void)
{
    struct scenario s = {malloc(LENGTH), LENGTH, {0}};
    generate_text(TEXT_RANDOM_BYTES, 5, s.text, LENGTH);
    cpu_histogram(s.text, LENGTH, s.expected);
    return s;
}

Test(diagnosis, each_class_of_wrongly_counted_bytes_is_named)
{
    struct scenario s = random_bytes();
    unsigned long long got[HISTOGRAM_BINS];
    count_with_extra(&s, high_byte_bin, got);
    EXPECT_MISTAKE(diagnose_one(&s, got), MISTAKE_HIGH_BYTES_COUNTED);
    count_with_extra(&s, capital_bin, got);
    EXPECT_MISTAKE(diagnose_one(&s, got), MISTAKE_CAPITALS_COUNTED);
    count_with_extra(&s, above_z_bin, got);
    EXPECT_MISTAKE(diagnose_one(&s, got), MISTAKE_ABOVE_Z_COUNTED);
    count_with_extra(&s, digit_bin, got);
    EXPECT_MISTAKE(diagnose_one(&s, got), MISTAKE_NON_LETTERS_COUNTED);
    free(s.text);
}

Test(diagnosis, the_right_total_in_shifted_bins_is_bin_arithmetic)
{
    struct scenario s = english();
    unsigned long long got[HISTOGRAM_BINS];
    for (int bin = 0; bin < HISTOGRAM_BINS; bin++)
        got[bin] = s.expected[(bin + 1) % HISTOGRAM_BINS];
    EXPECT_MISTAKE(diagnose_one(&s, got), MISTAKE_WRONG_BINS);
    free(s.text);
}

Test(diagnosis, irregular_shortfalls_are_lost_updates)
{
    struct scenario s = english();
    unsigned long long got[HISTOGRAM_BINS];
    for (int bin = 0; bin < HISTOGRAM_BINS; bin++)
        got[bin] = s.expected[bin] - s.expected[bin] / (3 + bin);
    EXPECT_MISTAKE(diagnose_one(&s, got), MISTAKE_LOST_UPDATES);
    free(s.text);
}

Test(diagnosis, bins_that_are_zero_while_the_others_are_exact_were_never_committed)
{
    struct scenario s = english();
    unsigned long long got[HISTOGRAM_BINS];
    memcpy(got, s.expected, sizeof got);
    got[4] = got[5] = got[6] = 0; /* a block of 4 threads that zeroes and commits bins 0-3 only */
    const unsigned long long *runs[1] = {got};
    char explanation[512];
    EXPECT_MISTAKE(diagnose(&s, runs, 1, explanation), MISTAKE_BINS_MISSING);
    cr_expect(strstr(explanation, "q-t, u-x, y-z") != NULL, "%s", explanation);
    free(s.text);
}

/* A commit loop that steps by one (for (bin = threadIdx.x; bin < HISTOGRAM_BINS; bin++)):
 * thread t commits bins t to the last, so each block adds bin b once per thread below b + 1. */
static void commit_with_unit_step(const struct scenario *s, unsigned int threads_per_block,
                                  unsigned long long *got)
{
    for (unsigned int bin = 0; bin < HISTOGRAM_BINS; bin++) {
        unsigned int committers = bin + 1 < threads_per_block ? bin + 1 : threads_per_block;
        got[bin] = s->expected[bin] * committers;
    }
}

Test(diagnosis, a_commit_loop_stepping_by_one_commits_bins_unevenly)
{
    struct scenario s = english();
    unsigned long long got[HISTOGRAM_BINS];
    const unsigned long long *runs[1] = {got};
    char explanation[512];
    commit_with_unit_step(&s, 256, got);
    EXPECT_MISTAKE(diagnose(&s, runs, 1, explanation), MISTAKE_COMMITTED_UNEVENLY);
    cr_expect(strstr(explanation, "a-d 1x, e-h 2x, i-l 3x, m-p 4x, q-t 5x, u-x 6x, y-z 7x"),
              "%s", explanation);
    cr_expect(strstr(explanation, "bin++"), "%s", explanation);
    /* Blocks of 4 threads: bins past the fourth are committed 4 times each. */
    commit_with_unit_step(&s, 4, got);
    EXPECT_MISTAKE(diagnose(&s, runs, 1, explanation), MISTAKE_COMMITTED_UNEVENLY);
    cr_expect(strstr(explanation, "q-t 4x, u-x 4x, y-z 4x"), "%s", explanation);
    free(s.text);
}

Test(diagnosis, bins_skipped_and_repeated_are_uneven_commits)
{
    struct scenario s = english();
    unsigned long long got[HISTOGRAM_BINS];
    for (int bin = 0; bin < HISTOGRAM_BINS; bin++)
        got[bin] = s.expected[bin] * (unsigned long long)(bin % 3); /* 0x, 1x, 2x, 0x, ... */
    EXPECT_MISTAKE(diagnose_one(&s, got), MISTAKE_COMMITTED_UNEVENLY);
    free(s.text);
}

/* Every block counting the first block's share: a global index without the block's offset. */
static void every_block_counts_the_first_share(const struct scenario *s, uint64_t share,
                                               unsigned long long *got)
{
    uint64_t blocks = (s->length + share - 1) / share;
    cpu_histogram(s->text, share < s->length ? share : s->length, got);
    for (int bin = 0; bin < HISTOGRAM_BINS; bin++)
        got[bin] *= blocks;
}

Test(diagnosis, every_block_counting_the_first_share_is_a_missing_block_offset)
{
    struct scenario s = english();
    unsigned long long got[HISTOGRAM_BINS];
    const unsigned long long *runs[1] = {got};
    char explanation[512];
    every_block_counts_the_first_share(&s, 256, got); /* one byte a thread, 256 threads */
    EXPECT_MISTAKE(diagnose(&s, runs, 1, explanation), MISTAKE_BLOCK_OFFSET_MISSING);
    cr_expect(strstr(explanation, "391 times"), "%s", explanation);
    cr_expect(strstr(explanation, "blockIdx.x"), "%s", explanation);
    every_block_counts_the_first_share(&s, 7 * 256, got); /* lab 6: 7 bytes a thread */
    EXPECT_MISTAKE(diagnose(&s, runs, 1, explanation), MISTAKE_BLOCK_OFFSET_MISSING);
    cr_expect(strstr(explanation, "56 times"), "%s", explanation);
    free(s.text);

    /* The same on random bytes, where most bytes are not letters, and on one letter. */
    s = random_bytes();
    every_block_counts_the_first_share(&s, 4096, got);
    EXPECT_MISTAKE(diagnose_one(&s, got), MISTAKE_BLOCK_OFFSET_MISSING);
    free(s.text);
    s = (struct scenario){malloc(LENGTH), LENGTH, {0}};
    generate_text(TEXT_ONE_LETTER, 3, s.text, LENGTH);
    cpu_histogram(s.text, LENGTH, s.expected);
    every_block_counts_the_first_share(&s, 1792, got);
    EXPECT_MISTAKE(diagnose_one(&s, got), MISTAKE_BLOCK_OFFSET_MISSING);
    free(s.text);
}

Test(diagnosis, bins_left_as_the_poison_are_diagnosed_at_once, .timeout = 2)
{
    /* Seven equal huge bins: their common divisor is huge, and no search may walk it. */
    struct scenario s = english();
    unsigned long long got[HISTOGRAM_BINS];
    memset(got, 0xA5, sizeof got);
    cr_expect_neq(diagnose_one(&s, got), MISTAKE_BLOCK_OFFSET_MISSING);
    free(s.text);
}

Test(diagnosis, halved_counts_are_not_a_missing_block_offset)
{
    /* Counts short by half, all even: got / 2 is the histogram of some prefix, but no number of
     * blocks of that prefix covers the text, so no block offset is blamed. */
    struct scenario s = english();
    unsigned long long got[HISTOGRAM_BINS];
    for (int bin = 0; bin < HISTOGRAM_BINS; bin++)
        got[bin] = s.expected[bin] / 2 & ~1ull; /* even, and far short of the whole */
    cr_expect_neq(diagnose_one(&s, got), MISTAKE_BLOCK_OFFSET_MISSING,
                  "the halves of a text are no blocks that counted its start");
    free(s.text);
}

Test(diagnosis, anything_else_is_unknown_but_explained)
{
    struct scenario s = english();
    unsigned long long got[HISTOGRAM_BINS];
    memcpy(got, s.expected, sizeof got);
    got[0] += 1000000;
    got[3] -= 7;
    char explanation[512];
    const unsigned long long *runs[1] = {got};
    EXPECT_MISTAKE(diagnose(&s, runs, 1, explanation), MISTAKE_UNKNOWN);
    cr_expect(strlen(explanation) > 20);
    free(s.text);
}

Test(bin_table, shows_expected_got_and_signed_difference)
{
    unsigned long long expected[HISTOGRAM_BINS] = {10, 20, 30, 40, 50, 60, 70};
    unsigned long long got[HISTOGRAM_BINS] = {10, 18, 30, 40, 50, 60, 75};
    char table[1024];
    format_bin_table(table, sizeof table, expected, got);
    cr_expect(strstr(table, "e-h"), "%s", table);
    cr_expect(strstr(table, "-2\n"), "%s", table);
    cr_expect(strstr(table, "+5\n"), "%s", table);
    cr_expect(strstr(table, "+0\n"), "%s", table);
}

/* The past-4-GiB text, 2^32 + 1 'a's then 256 bytes of every value: a kernel that counts the
 * tail's non-letters (lab 7's find-the-bug) was told "a 32-bit index" (a newcomer's trial), which
 * leaves the tail's letters out in place of adding to them. */
Test(compare, past_4gib_names_non_letters_apart_from_a_wrapped_index)
{
    const unsigned long long expected[HISTOGRAM_BINS] = {(1ull << 32) + 1 + 4, 4, 4, 4, 4, 4, 2};
    unsigned long long non_letters[HISTOGRAM_BINS], wrapped[HISTOGRAM_BINS], short_count[HISTOGRAM_BINS];
    memcpy(non_letters, expected, sizeof expected);
    non_letters[0] += 3; /* '^', '_', '`' */
    non_letters[6] += 2; /* '{', '|' */
    memcpy(wrapped, expected, sizeof expected);
    wrapped[0] += 257 - 4; /* the first 257 'a's again, in place of the tail */
    for (int bin = 1; bin < HISTOGRAM_BINS; bin++)
        wrapped[bin] -= expected[bin];
    memcpy(short_count, expected, sizeof expected);
    short_count[0] -= 1ull << 32;
    cr_expect(strstr(past_4gib_cause(non_letters, expected), "not lowercase letters") != NULL);
    cr_expect(strstr(past_4gib_cause(wrapped, expected), "32-bit index") != NULL);
    cr_expect(strstr(past_4gib_cause(short_count, expected), "32-bit count") != NULL);
}
