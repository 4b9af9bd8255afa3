/* Comparing a histogram with the CPU reference, and naming the likely mistake from the shape
 * of the difference, so a student gets a cause to look for instead of seven numbers. */
#ifndef COMMON_COMPARE_H
#define COMMON_COMPARE_H

#include "histogram.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum histogram_mistake {
    MISTAKE_NONE,
    MISTAKE_UNSTABLE,            /* repeated runs on the same input disagree */
    MISTAKE_NOTHING_COUNTED,     /* every bin 0 */
    MISTAKE_NOT_ZEROED,          /* every bin off by one same amount */
    MISTAKE_MULTIPLIED,          /* every bin a whole multiple of the truth */
    MISTAKE_READ_PAST_END,       /* the letters the grader puts after the text were counted */
    MISTAKE_TAIL_MISSING,        /* only a prefix of the text was counted */
    MISTAKE_HEAD_MISSING,        /* the start of the text (block 0's share) was not counted */
    MISTAKE_HIGH_BYTES_COUNTED,  /* bytes 0x80-0xFF counted as letters */
    MISTAKE_CAPITALS_COUNTED,    /* A-Z counted */
    MISTAKE_ABOVE_Z_COUNTED,     /* { | } ~ DEL counted: the upper bound of the range test */
    MISTAKE_NON_LETTERS_COUNTED, /* more counted than there are letters, no single class */
    MISTAKE_WRONG_BINS,          /* the right total in the wrong bins */
    MISTAKE_BINS_MISSING,        /* some bins exactly 0, the others right: never counted or committed */
    MISTAKE_LOST_UPDATES,        /* short by irregular amounts */
    MISTAKE_COMMITTED_UNEVENLY,  /* each bin a whole multiple of the truth, the multiples unequal */
    MISTAKE_BLOCK_OFFSET_MISSING, /* every block counted the first block's share of the text */
    MISTAKE_UNKNOWN
};

/* What the grader knows about one input and what came back from it. */
struct histogram_evidence {
    const char *text;
    uint64_t length;
    const unsigned long long *expected;    /* HISTOGRAM_BINS counts from cpu_histogram */
    const unsigned long long *const *runs; /* run_count results, HISTOGRAM_BINS each */
    int run_count;
    char letter_after_text; /* the byte the grader fills past the end of the text, or 0 */
    unsigned int start_offset; /* the text starts this many bytes past a 16-byte boundary */
    bool sequential; /* a CPU function's counts: no threads or blocks, so none of their
                        mistakes (a block's offset, a commit loop's step) is named */
};

struct histogram_diagnosis {
    enum histogram_mistake mistake;
    int wrong_run;           /* index of the run the diagnosis describes, -1 when all are right */
    char explanation[512];   /* what is wrong and what to look at, in a student's terms */
};

/* Any number of bins (the letters' 7, an image's 256): the one comparison and total of counts
 * that the text and image gradings and demos share. */
bool bins_equal(const unsigned long long *a, const unsigned long long *b, unsigned int bins);
unsigned long long bins_total(const unsigned long long *counts, unsigned int bins);
/* The letters' HISTOGRAM_BINS. */
bool histograms_equal(const unsigned long long *a, const unsigned long long *b);

/* Whether every one of `bins` bins of got is off from expected by one and the same amount, not
 * 0 (*amount): the grader's poison, a byte of its own on every run, left in bins never zeroed. */
bool bins_off_by_one_amount(const unsigned long long *got, const unsigned long long *expected,
                            unsigned int bins, unsigned long long *amount);

struct histogram_diagnosis diagnose_histogram(const struct histogram_evidence *evidence);

/* The likely cause of a wrong histogram of the past-4-GiB text (2^32 + 1 'a's, then 256 bytes of
 * every value), in a student's terms: only the signs a 32-bit variable leaves are blamed on one,
 * and counts added where none is short are the tail's non-letters; anything else is left to the
 * smaller texts, whose diagnosis sees every byte. */
const char *past_4gib_cause(const unsigned long long *got, const unsigned long long *expected);

/* A short stable name of a mistake, for tests and machine-readable reports. */
const char *histogram_mistake_name(enum histogram_mistake mistake);

/* Writes the table "bin expected got difference" into out (always terminated). */
void format_bin_table(char *out, size_t size, const unsigned long long *expected,
                      const unsigned long long *got);

#ifdef __cplusplus
}
#endif

#endif
