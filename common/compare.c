#include "compare.h"

#include "reference.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define EXPLAIN(diagnosis, ...) \
    snprintf((diagnosis)->explanation, sizeof (diagnosis)->explanation, __VA_ARGS__)

bool bins_equal(const unsigned long long *a, const unsigned long long *b, unsigned int bins)
{
    return memcmp(a, b, (size_t)bins * sizeof *a) == 0;
}

unsigned long long bins_total(const unsigned long long *counts, unsigned int bins)
{
    unsigned long long total = 0;
    for (unsigned int bin = 0; bin < bins; bin++)
        total += counts[bin];
    return total;
}

bool histograms_equal(const unsigned long long *a, const unsigned long long *b)
{
    return bins_equal(a, b, HISTOGRAM_BINS);
}

static unsigned long long total_of(const unsigned long long *histogram)
{
    return bins_total(histogram, HISTOGRAM_BINS);
}

/* Whether got differs from expected in `bin` alone, and the text has letters of that bin
 * alone: then a count past the end (the grader's letter after the text, in that bin) and a
 * count repeated by blocks cannot be told apart. */
static bool one_letter_bin_alone_differs(const unsigned long long *got,
                                         const unsigned long long *expected, int bin)
{
    for (int other = 0; other < HISTOGRAM_BINS; other++)
        if (other != bin && (got[other] != expected[other] || expected[other] != 0))
            return false;
    return bin >= 0 && got[bin] != expected[bin];
}

bool bins_off_by_one_amount(const unsigned long long *got, const unsigned long long *expected,
                            unsigned int bins, unsigned long long *amount)
{
    *amount = got[0] - expected[0];
    for (unsigned int bin = 1; bin < bins; bin++)
        if (got[bin] - expected[bin] != *amount)
            return false;
    return *amount != 0;
}

static bool all_at_most(const unsigned long long *got, const unsigned long long *expected)
{
    for (int bin = 0; bin < HISTOGRAM_BINS; bin++)
        if (got[bin] > expected[bin])
            return false;
    return true;
}

/* The length k for which text[0, k) has exactly the histogram wanted, or -1. */
static int64_t prefix_with_histogram(const char *text, uint64_t length,
                                     const unsigned long long *wanted)
{
    unsigned long long counts[HISTOGRAM_BINS] = {0};
    for (uint64_t k = 0;; k++) {
        if (histograms_equal(counts, wanted))
            return (int64_t)k;
        if (k == length)
            return -1;
        int bin = histogram_bin_of(text[k]);
        if (bin >= 0 && ++counts[bin] > wanted[bin])
            return -1;
    }
}

/* The start k for which text[k, length) has exactly the histogram wanted, or -1. */
static int64_t suffix_with_histogram(const char *text, uint64_t length,
                                     const unsigned long long *wanted)
{
    unsigned long long counts[HISTOGRAM_BINS] = {0};
    for (uint64_t k = length;; k--) {
        if (histograms_equal(counts, wanted))
            return (int64_t)k;
        if (k == 0)
            return -1;
        int bin = histogram_bin_of(text[k - 1]);
        if (bin >= 0 && ++counts[bin] > wanted[bin])
            return -1;
    }
}

/* Whether text[from, to) has exactly the histogram wanted. */
static bool range_has_histogram(const char *text, uint64_t from, uint64_t to,
                                const unsigned long long *wanted)
{
    unsigned long long counts[HISTOGRAM_BINS];
    cpu_histogram(text + from, to - from, counts);
    return histograms_equal(counts, wanted);
}

static int zero_bins(const unsigned long long *histogram)
{
    int zeros = 0;
    for (int bin = 0; bin < HISTOGRAM_BINS; bin++)
        zeros += histogram[bin] == 0;
    return zeros;
}

static bool is_multiple(const unsigned long long *got, const unsigned long long *expected,
                        unsigned long long *factor)
{
    unsigned long long m = 0;
    for (int bin = 0; bin < HISTOGRAM_BINS; bin++) {
        if (expected[bin] == 0) {
            if (got[bin] != 0)
                return false;
            continue;
        }
        if (got[bin] % expected[bin] != 0)
            return false;
        unsigned long long this_factor = got[bin] / expected[bin];
        if (m != 0 && this_factor != m)
            return false;
        m = this_factor;
    }
    *factor = m;
    return m >= 2;
}

/* Names the class of non-letters counted when the excess matches one exactly; with
 * any_class, also the vaguer "some non-letters", when there are enough of them. */
static bool explain_excess(struct histogram_diagnosis *d, const struct histogram_evidence *e,
                           const unsigned long long *got, bool any_class)
{
    unsigned long long excess = total_of(got) - total_of(e->expected);
    unsigned long long high = 0, capitals = 0, above_z = 0, above_z_in_bins = 0, non_letters = 0;
    for (uint64_t i = 0; i < e->length; i++) {
        unsigned char byte = (unsigned char)e->text[i];
        high += byte >= 0x80;
        capitals += byte >= 'A' && byte <= 'Z';
        above_z += byte > 'z' && byte < 0x80;
        /* Without the upper bound, '{' and '|' land in bin 6; '}', '~' and DEL past the bins. */
        above_z_in_bins += byte == '{' || byte == '|';
        non_letters += byte < 'a' || byte > 'z';
    }
    if (excess == high) {
        d->mistake = MISTAKE_HIGH_BYTES_COUNTED;
        EXPLAIN(d, "%llu more letters counted than there are, exactly the number of bytes of 0x80 "
                   "or above. char is signed: such a byte is negative, so test the position "
                   "against both ends (0 <= c - 'a' < 26), or load it as unsigned char.",
                excess);
    } else if (excess == capitals) {
        d->mistake = MISTAKE_CAPITALS_COUNTED;
        EXPLAIN(d, "%llu more letters counted than there are, exactly the number of capitals "
                   "(A-Z). Only lowercase letters belong in the histogram: check the range test.",
                excess);
    } else if (excess == above_z || excess == above_z_in_bins) {
        d->mistake = MISTAKE_ABOVE_Z_COUNTED;
        EXPLAIN(d, "%llu more letters counted than there are, exactly the number of bytes just "
                   "above 'z' (%s). The range test is missing its upper bound (c - 'a' < 26): "
                   "{ and | land in bin y-z, and } ~ DEL one past the last bin.",
                excess, excess == above_z ? "{ | } ~ and DEL" : "{ and |");
    } else if (any_class && excess <= non_letters) {
        d->mistake = MISTAKE_NON_LETTERS_COUNTED;
        EXPLAIN(d, "%llu more letters counted than the text holds: bytes that are not lowercase "
                   "letters were counted. Check the range test (0 <= c - 'a' < 26).",
                excess);
    } else {
        return false;
    }
    return true;
}

/* Whether each bin came back a whole number of times its right count, not the same number for
 * every bin, one of them at least twice: bins committed unevenly (0 times for some, perhaps).
 * Writes the multiples, "a-d 1x, e-h 2x, ...", into multiples. */
static bool committed_unevenly(const unsigned long long *got, const unsigned long long *expected,
                               char *multiples, size_t size)
{
    unsigned long long first_factor = 0;
    bool any = false, repeated = false, unequal = false;
    for (int bin = 0; bin < HISTOGRAM_BINS; bin++) {
        if (expected[bin] == 0) {
            if (got[bin] != 0)
                return false;
            continue;
        }
        if (got[bin] % expected[bin] != 0)
            return false;
        unsigned long long factor = got[bin] / expected[bin];
        repeated |= factor >= 2;
        unequal |= any && factor != first_factor;
        if (!any)
            first_factor = factor;
        any = true;
    }
    if (!repeated || !unequal)
        return false;
    size_t used = 0;
    multiples[0] = '\0';
    for (int bin = 0; bin < HISTOGRAM_BINS && used < size; bin++)
        if (expected[bin] != 0)
            used += (size_t)snprintf(multiples + used, size - used, "%s%s %llux",
                                     used ? ", " : "", histogram_bin_name(bin),
                                     got[bin] / expected[bin]);
    return true;
}

static unsigned long long gcd(unsigned long long a, unsigned long long b)
{
    while (b != 0) {
        unsigned long long r = a % b;
        a = b;
        b = r;
    }
    return a;
}

/* Whether got is `blocks` times the histogram of the text's first bytes, for some number of
 * blocks of that many bytes that just covers the text: what every block counting the first
 * block's share gives. The share is share_first to share_last bytes (non-letters at its end
 * are not seen). */
static bool first_share_repeated(const struct histogram_evidence *e, const unsigned long long *got,
                                 unsigned long long *blocks, int64_t *share_first,
                                 int64_t *share_last)
{
    const unsigned long long *expected = e->expected;
    /* k blocks each count the share: k divides every bin, and no bin of the share can hold more
     * than the whole text's (k >= got / expected); k - 1 shares of a byte at least do not cover
     * the text (k <= length). Within those bounds the loop is short, whatever the bins hold. */
    unsigned long long common = 0, least = 2;
    for (int bin = 0; bin < HISTOGRAM_BINS; bin++) {
        common = gcd(common, got[bin]);
        if (expected[bin] == 0) {
            if (got[bin] != 0)
                return false;
            continue;
        }
        unsigned long long at_least = got[bin] / expected[bin] + (got[bin] % expected[bin] != 0);
        if (at_least > least)
            least = at_least;
    }
    unsigned long long most = e->length < common ? e->length : common;
    for (unsigned long long k = least; k <= most; k++) {
        if (common % k != 0)
            continue;
        unsigned long long share_counts[HISTOGRAM_BINS];
        for (int bin = 0; bin < HISTOGRAM_BINS; bin++)
            share_counts[bin] = got[bin] / k;
        int64_t first = prefix_with_histogram(e->text, e->length, share_counts);
        if (first <= 0)
            continue;
        int64_t last = first;
        while ((uint64_t)last < e->length && histogram_bin_of(e->text[last]) < 0)
            last++;
        /* k blocks of the share cover the text, k - 1 do not. */
        if ((k - 1) * (unsigned long long)first < e->length &&
            k * (unsigned long long)last >= e->length) {
            *blocks = k;
            *share_first = first;
            *share_last = last;
            return true;
        }
    }
    return false;
}

struct histogram_diagnosis diagnose_histogram(const struct histogram_evidence *e)
{
    struct histogram_diagnosis d = {MISTAKE_NONE, -1, ""};
    for (int run = 0; run < e->run_count && d.wrong_run < 0; run++)
        if (!histograms_equal(e->runs[run], e->expected))
            d.wrong_run = run;
    if (d.wrong_run < 0) {
        EXPLAIN(&d, "right");
        return d;
    }
    const unsigned long long *got = e->runs[d.wrong_run];
    const unsigned long long *expected = e->expected;

    /* Bins not zeroed before the runs that disagree: each run's poison is its own. */
    unsigned long long offset = 0;
    bool not_zeroed =
        total_of(got) != 0 && bins_off_by_one_amount(got, expected, HISTOGRAM_BINS, &offset);
    for (int run = 0; run < e->run_count && not_zeroed; run++) {
        unsigned long long amount;
        not_zeroed = histograms_equal(e->runs[run], expected) ||
                     bins_off_by_one_amount(e->runs[run], expected, HISTOGRAM_BINS, &amount);
    }
    if (not_zeroed) {
        d.mistake = MISTAKE_NOT_ZEROED;
        EXPLAIN(&d, "every bin is off by the same amount (%llu, 0x%llx): the bins did not start "
                    "at 0. d_histogram holds garbage on entry; set it to zero before counting.",
                offset, offset);
        return d;
    }
    for (int run = 1; run < e->run_count; run++) {
        if (!histograms_equal(e->runs[run], e->runs[0])) {
            d.mistake = MISTAKE_UNSTABLE;
            EXPLAIN(&d, "the same input gave different counts on different runs (runs 1 and %d): "
                        "a race. Look for an update without atomicAdd, a missing "
                        "__syncthreads() between zeroing, counting and committing the private "
                        "bins, or state left over from an earlier call.",
                    run + 1);
            return d;
        }
    }
    if (total_of(got) == 0) {
        d.mistake = MISTAKE_NOTHING_COUNTED;
        EXPLAIN(&d, "every bin is 0: nothing was counted. Are the bytes visited and their bins "
                    "incremented? For a kernel: did it launch (check cudaGetLastError after it), "
                    "does the grid cover the text, and does it add into d_histogram?");
        return d;
    }
    unsigned long long factor;
    if (is_multiple(got, expected, &factor)) {
        d.mistake = MISTAKE_MULTIPLIED;
        EXPLAIN(&d, "every bin is exactly %llu times the right count: the same counts were added "
                    "%llu times. Is the commit to global memory done by every thread (or every "
                    "block) instead of once per bin, or is the text counted several times?",
                factor, factor);
        return d;
    }
    char multiples[160];
    if (!e->sequential && committed_unevenly(got, expected, multiples, sizeof multiples)) {
        d.mistake = MISTAKE_COMMITTED_UNEVENLY;
        EXPLAIN(&d, "every bin is a whole multiple of its right count, a different multiple for "
                    "each (%s): the bins were committed a different number of times each. Look "
                    "at the commit loop's step: 'for (bin = threadIdx.x; bin < HISTOGRAM_BINS; "
                    "bin++)' has thread t add bins t to the last, so bin b is added b + 1 "
                    "times. Step by blockDim.x, so that each bin is added once per block.",
                multiples);
        return d;
    }
    unsigned long long blocks;
    int64_t share_first, share_last;
    if (!e->sequential && first_share_repeated(e, got, &blocks, &share_first, &share_last)) {
        char share[48];
        if (share_first == share_last)
            snprintf(share, sizeof share, "%" PRId64, share_first);
        else
            snprintf(share, sizeof share, "%" PRId64 " to %" PRId64, share_first, share_last);
        d.mistake = MISTAKE_BLOCK_OFFSET_MISSING;
        EXPLAIN(&d, "every bin is exactly %llu times the count of the text's first %s bytes: "
                    "each of %llu blocks counted the first block's share, the start of the text. "
                    "A thread's index in the grid is missing its block's offset: it is "
                    "blockIdx.x * blockDim.x + threadIdx.x, not threadIdx.x alone (and its first "
                    "byte that index times the bytes a thread counts).",
                blocks, share, blocks);
        if (e->letter_after_text &&
            one_letter_bin_alone_differs(got, expected, histogram_bin_of(e->letter_after_text))) {
            size_t used = strlen(d.explanation);
            snprintf(d.explanation + used, sizeof d.explanation - used,
                     " Or, on this text of one letter, bytes past its end (the grader's '%c's) "
                     "were read: check the bounds test (i < length) too.",
                     e->letter_after_text);
        }
        return d;
    }
    bool excess = total_of(got) > total_of(expected);
    if (excess && explain_excess(&d, e, got, false))
        return d;
    int after_bin = e->letter_after_text ? histogram_bin_of(e->letter_after_text) : -1;
    if (after_bin >= 0 && got[after_bin] > expected[after_bin]) {
        bool only_there = true;
        for (int bin = 0; bin < HISTOGRAM_BINS; bin++)
            if (bin != after_bin && got[bin] != expected[bin])
                only_there = false;
        if (only_there) {
            d.mistake = MISTAKE_READ_PAST_END;
            EXPLAIN(&d, "%llu extra counts in bin %s, and the grader fills the bytes after the "
                        "text, and before it, with '%c': bytes past the end (or before the start) "
                        "were read. Check the bounds test (i < length) in every loop, and where "
                        "the first load starts.",
                    got[after_bin] - expected[after_bin], histogram_bin_name(after_bin),
                    e->letter_after_text);
            return d;
        }
    }
    if (all_at_most(got, expected)) {
        /* What a kernel of 16-byte loads counts byte by byte: the head before the first
         * boundary and the tail after the last. */
        uint64_t head = (16 - e->start_offset % 16) % 16;
        uint64_t tail = head < e->length ? (e->start_offset + e->length) % 16 : 0;
        if (head > 0 && head < e->length && range_has_histogram(e->text, head, e->length, got)) {
            d.mistake = MISTAKE_HEAD_MISSING;
            EXPLAIN(&d, "the first %" PRIu64 " bytes were not counted, the rest were: the text "
                        "starts %u bytes past a 16-byte boundary, and those are the bytes before "
                        "the first boundary (the head that 16-byte loads leave). Count them one by "
                        "one, whatever their number (1 to 15).",
                    head, e->start_offset % 16);
            return d;
        }
        if (tail > 0 && head + tail < e->length &&
            range_has_histogram(e->text, 0, e->length - tail, got)) {
            d.mistake = MISTAKE_TAIL_MISSING;
            EXPLAIN(&d, "the last %" PRIu64 " bytes were not counted, the rest were: those are the "
                        "bytes after the last 16-byte boundary (the tail that 16-byte loads "
                        "leave), or a loop that stops short of the end. Count the tail one by one, "
                        "whatever its length (1 to 15).",
                    tail);
            return d;
        }
        int64_t prefix = prefix_with_histogram(e->text, e->length, got);
        if (prefix >= 0) {
            d.mistake = MISTAKE_TAIL_MISSING;
            EXPLAIN(&d, "exactly the first %" PRId64 " of %" PRIu64 " bytes were counted, the "
                        "rest not: the grid or the loop stops too early. Round the number of "
                        "blocks up, let a grid-stride loop run to the end of the text, and have "
                        "each thread count every byte the grid was sized for (as many as "
                        "chars_per_thread, say, not one).",
                    prefix, e->length);
            return d;
        }
        int64_t suffix = suffix_with_histogram(e->text, e->length, got);
        if (suffix >= 0) {
            d.mistake = MISTAKE_HEAD_MISSING;
            EXPLAIN(&d, "the first %" PRId64 " bytes were not counted, the rest were. That is "
                        "block 0's share if a block covers %" PRId64 " bytes: an "
                        "'if (blockIdx.x > 0)' guard kept from the global-memory version (figure "
                        "9.9) skips block 0's commit.",
                    suffix, suffix);
            return d;
        }
        char missing[64] = "";
        int missing_bins = 0, exact_bins = 0;
        for (int bin = 0; bin < HISTOGRAM_BINS; bin++) {
            if (got[bin] == 0 && expected[bin] > 0) {
                snprintf(missing + strlen(missing), sizeof missing - strlen(missing), "%s%s",
                         missing_bins++ ? ", " : "", histogram_bin_name(bin));
            } else if (got[bin] == expected[bin] && expected[bin] > 0) {
                exact_bins++;
            }
        }
        if (missing_bins > 0 && exact_bins > 0 && missing_bins + exact_bins == HISTOGRAM_BINS -
                                                      zero_bins(expected)) {
            d.mistake = MISTAKE_BINS_MISSING;
            EXPLAIN(&d, "bins %s came back 0 and every other bin is exact: those bins were never "
                        "counted or never committed. Does every bin have a thread that zeroes "
                        "and commits it, whatever the number of threads in a block?",
                    missing);
            return d;
        }
        d.mistake = MISTAKE_LOST_UPDATES;
        EXPLAIN(&d, "bins are short, by irregular amounts (%llu counts lost in all): updates "
                    "were lost. Look for a plain += where atomicAdd is needed, or a missing "
                    "__syncthreads() before the private bins are committed.",
                total_of(expected) - total_of(got));
        return d;
    }
    if (excess && explain_excess(&d, e, got, true))
        return d;
    if (total_of(got) == total_of(expected)) {
        d.mistake = MISTAKE_WRONG_BINS;
        EXPLAIN(&d, "the total is right but letters landed in the wrong bins: check the bin "
                    "arithmetic, (c - 'a') / 4.");
        return d;
    }
    d.mistake = MISTAKE_UNKNOWN;
    EXPLAIN(&d, "the counts are wrong in a way the grader does not recognise: compare the table "
                "bin by bin, and try a small text (./grade with --input) to see the pattern.");
    return d;
}

const char *histogram_mistake_name(enum histogram_mistake mistake)
{
    static const char *const names[] = {
        [MISTAKE_NONE] = "none",
        [MISTAKE_UNSTABLE] = "unstable",
        [MISTAKE_NOTHING_COUNTED] = "nothing-counted",
        [MISTAKE_NOT_ZEROED] = "not-zeroed",
        [MISTAKE_MULTIPLIED] = "multiplied",
        [MISTAKE_READ_PAST_END] = "read-past-end",
        [MISTAKE_TAIL_MISSING] = "tail-missing",
        [MISTAKE_HEAD_MISSING] = "head-missing",
        [MISTAKE_HIGH_BYTES_COUNTED] = "high-bytes-counted",
        [MISTAKE_CAPITALS_COUNTED] = "capitals-counted",
        [MISTAKE_ABOVE_Z_COUNTED] = "above-z-counted",
        [MISTAKE_NON_LETTERS_COUNTED] = "non-letters-counted",
        [MISTAKE_WRONG_BINS] = "wrong-bins",
        [MISTAKE_BINS_MISSING] = "bins-missing",
        [MISTAKE_LOST_UPDATES] = "lost-updates",
        [MISTAKE_COMMITTED_UNEVENLY] = "committed-unevenly",
        [MISTAKE_BLOCK_OFFSET_MISSING] = "block-offset-missing",
        [MISTAKE_UNKNOWN] = "unknown",
    };
    return (unsigned)mistake <= MISTAKE_UNKNOWN ? names[mistake] : "unknown";
}

void format_bin_table(char *out, size_t size, const unsigned long long *expected,
                      const unsigned long long *got)
{
    int used = snprintf(out, size, "  %-4s %20s %20s %21s\n", "bin", "expected", "got",
                        "difference");
    for (int bin = 0; bin < HISTOGRAM_BINS && used >= 0 && (size_t)used < size; bin++) {
        /* Differences are shown signed: a poisoned bin shows up as a huge positive one. */
        long long difference = (long long)(got[bin] - expected[bin]);
        used += snprintf(out + used, size - (size_t)used, "  %-4s %20llu %20llu %+21lld\n",
                         histogram_bin_name(bin), expected[bin], got[bin], difference);
    }
}

const char *past_4gib_cause(const unsigned long long *got, const unsigned long long *expected)
{
    const unsigned long long wrap = 1ull << 32;
    if (got[0] != expected[0] && got[0] % wrap == expected[0] % wrap)
        return "a 32-bit count: bin a-d holds more than 2^32 and came back short by a multiple of "
               "2^32. Count in unsigned long long, in every private copy too.";
    bool some_bin_short = false;
    unsigned long long excess = 0;
    for (int bin = 0; bin < HISTOGRAM_BINS; bin++) {
        if (got[bin] < expected[bin])
            some_bin_short = true;
        else
            excess += got[bin] - expected[bin];
    }
    /* A wrapped index counts the text's first bytes again in place of its last, whose letters
     * are then missing; the 256 last bytes counted as letters take nothing away. */
    if (!some_bin_short && excess > 0 && excess <= 256)
        return "bytes that are not lowercase letters were counted: the text's last 256 bytes "
               "hold every value once, and 26 of them are letters. Check the range test "
               "(0 <= c - 'a' < 26) on every byte, in every loop.";
    if (got[0] > expected[0])
        return "a 32-bit index: the start of the text was counted again. Past 2^32 an unsigned int "
               "wraps around to 0; compute indices and sizes in uint64_t.";
    return "not one this test can name; if the smaller texts pass, look for a 32-bit index, size "
           "or count (the text is longer than 2^32 bytes).";
}
