#include "image_grading.h"

#include "bandwidth.h"
#include "compare.h"
#include "crossing.h"
#include "cuda_check.h"
#include "device.h"
#include "grading.h"
#include "guarded_runs.h"
#include "images.h"
#include "inputs.h"
#include "repeated_text.h"
#include "report.h"
#include "speed_tables.h"
#include "timing.h"

#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SMALL_BINS 16
#define BYTE_BINS 256
#define MAX_BINS BYTE_BINS
/* Guard pixels on both sides of the image, holding a valid value: a kernel that reads past
 * either end counts them, in the guard value's bin, and the diagnosis can say so. Part A's is
 * 15, a bin the slides' images (values 0-14) leave empty. */
#define IMAGE_GUARD_BYTES 16384
#define SMALL_GUARD_VALUE 15u
#define BYTE_GUARD_VALUE 0xB7u
/* Counters around the bins, holding a known value: a write outside the bins changes one. 256
 * each side: a pixel read as a signed char (-128 to -1), or a part A value of 16 to 271 used as
 * an index, lands here. */
#define BIN_GUARD_COUNTERS 256

/* What part A and part B differ in: the pixel's size, the bins, the guards (guarded_runs.h). */
struct pixel_format {
    bool small;
    struct guard_policy guards;
};
static const struct pixel_format SMALL_FORMAT = {
    true, {SMALL_BINS, sizeof(uint32_t), SMALL_GUARD_VALUE, IMAGE_GUARD_BYTES, BIN_GUARD_COUNTERS}};
static const struct pixel_format BYTE_FORMAT = {
    false, {BYTE_BINS, 1, BYTE_GUARD_VALUE, IMAGE_GUARD_BYTES, BIN_GUARD_COUNTERS}};

static uint32_t pixel_at(const struct pixel_format *format, const void *pixels, uint64_t i)
{
    return format->small ? ((const uint32_t *)pixels)[i] : ((const uint8_t *)pixels)[i];
}

/* ---------------------------------------------------------------------------------------- */
/* The images                                                                               */
/* ---------------------------------------------------------------------------------------- */

enum image_source {
    SOURCE_GENERATED,    /* generate_image(kind, seed): bytes, >> 4 for part A */
    SOURCE_PHOTO,        /* the shipped photograph, whole */
    SOURCE_SLIDES,       /* part A: values 0-14, as the slides' genData makes them */
    SOURCE_VALUES_TO_63, /* part A: a quarter of the pixels 16-63, the rest 0-15 */
    SOURCE_VALUES_TO_MAX, /* part A: a quarter of the pixels 16 to 0xFFFFFFFF, the rest 0-15 */
    SOURCE_STUDENT_FILE, /* ./grade --input FILE */
};

struct image_case {
    const char *name;
    enum image_group group;
    enum image_source source;
    enum image_kind kind;
    uint64_t pixels;
    unsigned int offset;            /* part B: the image starts this many bytes past a
                                       16-byte boundary */
    unsigned int threads_per_block; /* part A on the GPU */
};

#define A_BLOCK 256
static const struct image_case IMAGE_CASES[] = {
    {"empty_image", IMAGE_SIZES, SOURCE_GENERATED, IMAGE_NOISE, 0, 0, A_BLOCK},
    {"one_pixel", IMAGE_SIZES, SOURCE_GENERATED, IMAGE_NOISE, 1, 0, A_BLOCK},
    {"noise_1023x1025", IMAGE_SIZES, SOURCE_GENERATED, IMAGE_NOISE, 1023 * 1025, 0, A_BLOCK},
    {"slides_1024x1024", IMAGE_SIZES, SOURCE_SLIDES, IMAGE_NOISE, 1024 * 1024, 0, A_BLOCK},
    {"blocks_of_1", IMAGE_BLOCK_SIZES, SOURCE_GENERATED, IMAGE_NOISE, 1023 * 1025, 0, 1},
    {"blocks_of_5", IMAGE_BLOCK_SIZES, SOURCE_GENERATED, IMAGE_NOISE, 1023 * 1025, 0, 5},
    {"blocks_of_15", IMAGE_BLOCK_SIZES, SOURCE_GENERATED, IMAGE_NOISE, 1023 * 1025, 0, 15},
    {"blocks_of_16", IMAGE_BLOCK_SIZES, SOURCE_GENERATED, IMAGE_NOISE, 1023 * 1025, 0, 16},
    {"blocks_of_17", IMAGE_BLOCK_SIZES, SOURCE_GENERATED, IMAGE_NOISE, 1023 * 1025, 0, 17},
    {"blocks_of_100", IMAGE_BLOCK_SIZES, SOURCE_GENERATED, IMAGE_NOISE, 1023 * 1025, 0, 100},
    {"blocks_of_256", IMAGE_BLOCK_SIZES, SOURCE_GENERATED, IMAGE_NOISE, 1023 * 1025, 0, 256},
    {"blocks_of_1024", IMAGE_BLOCK_SIZES, SOURCE_GENERATED, IMAGE_NOISE, 1023 * 1025, 0, 1024},
    {"photo", IMAGE_VALUES, SOURCE_PHOTO, IMAGE_PHOTO, 0, 0, A_BLOCK},
    {"values_16_to_63", IMAGE_VALUES, SOURCE_VALUES_TO_63, IMAGE_NOISE, 1000003, 0, A_BLOCK},
    {"values_up_to_0xffffffff", IMAGE_VALUES, SOURCE_VALUES_TO_MAX, IMAGE_NOISE, 1000003, 0,
     A_BLOCK},
    /* Off a boundary: a head longer than the whole image (a count less its head wrapping
     * round) shows. */
    {"empty_image", SMALL_IMAGES, SOURCE_GENERATED, IMAGE_NOISE, 0, 7, 0},
    {"one_pixel", SMALL_IMAGES, SOURCE_GENERATED, IMAGE_NOISE, 1, 3, 0},
    {"pixels_15", SMALL_IMAGES, SOURCE_GENERATED, IMAGE_NOISE, 15, 0, 0},
    {"pixels_16", SMALL_IMAGES, SOURCE_GENERATED, IMAGE_NOISE, 16, 0, 0},
    {"pixels_17", SMALL_IMAGES, SOURCE_GENERATED, IMAGE_NOISE, 17, 0, 0},
    {"pixels_4095", SMALL_IMAGES, SOURCE_GENERATED, IMAGE_NOISE, 4095, 0, 0},
    {"offset_1", SMALL_IMAGES, SOURCE_GENERATED, IMAGE_NOISE, 4099, 1, 0},
    {"offset_2", SMALL_IMAGES, SOURCE_GENERATED, IMAGE_NOISE, 4099, 2, 0},
    {"offset_3", SMALL_IMAGES, SOURCE_GENERATED, IMAGE_NOISE, 4099, 3, 0},
    {"offset_4", SMALL_IMAGES, SOURCE_GENERATED, IMAGE_NOISE, 4099, 4, 0},
    {"offset_5", SMALL_IMAGES, SOURCE_GENERATED, IMAGE_NOISE, 4099, 5, 0},
    {"offset_6", SMALL_IMAGES, SOURCE_GENERATED, IMAGE_NOISE, 4099, 6, 0},
    {"offset_7", SMALL_IMAGES, SOURCE_GENERATED, IMAGE_NOISE, 4099, 7, 0},
    {"offset_8", SMALL_IMAGES, SOURCE_GENERATED, IMAGE_NOISE, 4099, 8, 0},
    {"offset_9", SMALL_IMAGES, SOURCE_GENERATED, IMAGE_NOISE, 4099, 9, 0},
    {"offset_10", SMALL_IMAGES, SOURCE_GENERATED, IMAGE_NOISE, 4099, 10, 0},
    {"offset_11", SMALL_IMAGES, SOURCE_GENERATED, IMAGE_NOISE, 4099, 11, 0},
    {"offset_12", SMALL_IMAGES, SOURCE_GENERATED, IMAGE_NOISE, 4099, 12, 0},
    {"offset_13", SMALL_IMAGES, SOURCE_GENERATED, IMAGE_NOISE, 4099, 13, 0},
    {"offset_14", SMALL_IMAGES, SOURCE_GENERATED, IMAGE_NOISE, 4099, 14, 0},
    {"offset_15", SMALL_IMAGES, SOURCE_GENERATED, IMAGE_NOISE, 4099, 15, 0},
    {"photo_tiled_prime", IMAGE_KINDS, SOURCE_GENERATED, IMAGE_PHOTO, 1000003, 0, 0},
    {"noise_prime", IMAGE_KINDS, SOURCE_GENERATED, IMAGE_NOISE, 1000003, 0, 0},
    {"dark_prime", IMAGE_KINDS, SOURCE_GENERATED, IMAGE_DARK, 1000003, 0, 0},
    {"single_value_prime", IMAGE_KINDS, SOURCE_GENERATED, IMAGE_SINGLE_VALUE, 1000003, 0, 0},
    {"gradient_prime", IMAGE_KINDS, SOURCE_GENERATED, IMAGE_GRADIENT, 1000003, 0, 0},
    {"noise_16mib_plus_3", LONG_IMAGES, SOURCE_GENERATED, IMAGE_NOISE, (16u << 20) + 3, 0, 0},
    {"dark_starting_off_boundary", LONG_IMAGES, SOURCE_GENERATED, IMAGE_DARK, 1000033, 5, 0},
    {"photo", LONG_IMAGES, SOURCE_PHOTO, IMAGE_PHOTO, 0, 0, 0},
};
static const struct image_case INPUT_FILE_CASE = {"your_input_file", 0, SOURCE_STUDENT_FILE,
                                                  IMAGE_NOISE, 0, 0, A_BLOCK};

static uint8_t *load_or_fail(const char *path, uint64_t *count)
{
    uint8_t *pixels = NULL;
    char error[512];
    cr_assert(load_image_input(path, &pixels, count, error, sizeof error) == 0, "%s", error);
    return pixels;
}

static uint8_t *shipped_photo(uint64_t *count)
{
    char path[4096];
    kit_data_path(PHOTO_FILE_NAME, path, sizeof path);
    return load_or_fail(path, count);
}

/* bytes[0, count) of a kind: the photo kind tiles the shipped photograph. */
static void generate_bytes(enum image_kind kind, uint64_t seed, uint8_t *bytes, uint64_t count)
{
    uint64_t photo_pixels = 0;
    uint8_t *photo = kind == IMAGE_PHOTO ? shipped_photo(&photo_pixels) : NULL;
    generate_image(kind, seed, photo, photo_pixels, bytes, count);
    free(photo);
}

/* Part A's pixels of a generated source: values 0-14 (the slides), or a quarter of them out of
 * the bins (values 16 to 63, or 16 to 0xFFFFFFFF, its extremes included). */
static void generate_small_values(enum image_source source, uint64_t seed, uint32_t *pixels,
                                  uint64_t count)
{
    static const uint32_t extremes[] = {16, 17, 255, 256, 0x10000u, 0x7FFFFFFFu, 0x80000000u,
                                        0xFFFFFFF0u, 0xFFFFFFFFu};
    uint64_t state = seed ^ 0x51DE5ull;
    for (uint64_t i = 0; i < count; i++) {
        uint64_t draw = splitmix64(&state);
        if (source == SOURCE_SLIDES)
            pixels[i] = (uint32_t)(draw % 15);
        else if (draw % 4 != 0)
            pixels[i] = (uint32_t)((draw >> 8) % SMALL_BINS);
        else if (source == SOURCE_VALUES_TO_63)
            pixels[i] = 16 + (uint32_t)((draw >> 8) % 48);
        else if ((draw >> 8) % 2 == 0)
            pixels[i] = extremes[(draw >> 16) % (sizeof extremes / sizeof extremes[0])];
        else
            pixels[i] = 16 + (uint32_t)((draw >> 16) % (0xFFFFFFFFull - 15));
    }
}

/* The case's pixels in host memory (malloc'ed), in the format's type. */
static void *case_pixels(const struct pixel_format *format, const struct image_case *image_case,
                         const struct grading_options *options, uint64_t *count)
{
    uint8_t *bytes = NULL;
    switch (image_case->source) {
    case SOURCE_SLIDES:
    case SOURCE_VALUES_TO_63:
    case SOURCE_VALUES_TO_MAX: {
        *count = image_case->pixels;
        uint32_t *pixels = grading_malloc(*count * sizeof *pixels);
        generate_small_values(image_case->source, options->seed, pixels, *count);
        return pixels;
    }
    case SOURCE_PHOTO:
        bytes = shipped_photo(count);
        break;
    case SOURCE_STUDENT_FILE:
        bytes = load_or_fail(options->input_file, count);
        break;
    case SOURCE_GENERATED:
        *count = image_case->pixels;
        bytes = grading_malloc(*count);
        /* Its seed the grading's plus its start offset: images at different offsets differ,
         * so that no call can be answered with an earlier call's result. */
        generate_bytes(image_case->kind, options->seed + image_case->offset, bytes, *count);
        /* Part B's last pixel is 255, the largest value, on every seed: where the image ends
         * off a 16-byte boundary it is in the tail that a kernel of 16-byte loads counts on its
         * own, and every tail length from 1 to 15 occurs among the images. */
        if (!format->small && *count > 0)
            bytes[*count - 1] = BYTE_BINS - 1;
        break;
    }
    if (!format->small)
        return bytes;
    uint32_t *pixels = grading_malloc(*count * sizeof *pixels);
    widen_to_small_pixels(bytes, *count, pixels);
    free(bytes);
    return pixels;
}

static void cpu_histogram_of(const struct pixel_format *format, const void *pixels,
                             uint64_t count, unsigned long long *histogram)
{
    if (format->small)
        cpu_small_histogram(pixels, count, SMALL_BINS, histogram);
    else
        cpu_byte_histogram(pixels, count, histogram);
}

/* threads_per_block: part A's on the GPU, or 0. */
static void describe_case(char *where, size_t size, const char *function_name,
                          const struct image_case *image_case, unsigned int threads_per_block,
                          const struct grading_options *options, uint64_t count)
{
    char blocks[64] = "", offset[64] = "";
    if (threads_per_block)
        snprintf(blocks, sizeof blocks, ", blocks of %u threads", threads_per_block);
    if (image_case->offset)
        snprintf(offset, sizeof offset, ", starting %u bytes past a 16-byte boundary",
                 image_case->offset);
    if (image_case->source == SOURCE_STUDENT_FILE)
        snprintf(where, size, "%s on %s (%" PRIu64 " pixels%s)", function_name,
                 options->input_file, count, blocks);
    else if (image_case->source == SOURCE_PHOTO)
        snprintf(where, size, "%s on %s (%s, %" PRIu64 " pixels%s)", function_name,
                 image_case->name, PHOTO_FILE_NAME, count, blocks);
    else
        snprintf(where, size, "%s on %s (%" PRIu64 " pixels%s%s, seed %" PRIu64 ")",
                 function_name, image_case->name, count, blocks, offset, options->seed);
}

/* ---------------------------------------------------------------------------------------- */
/* Guards around the image and the bins                                                     */
/* ---------------------------------------------------------------------------------------- */

/* What a run wrote outside the bins, for the test's message. */
static void wrote_outside(const struct pixel_format *format, const struct guarded_outcome *outcome,
                          const char *bins_name, char *problem, size_t problem_size)
{
    snprintf(problem, problem_size,
             "(wrote-outside): it wrote outside the %u bins: the counter at %s[%d] "
             "changed. %s%s",
             format->guards.bins, bins_name, outcome->changed_counter,
             format->small
                 ? "A pixel of 16 or more was used as a bin index: the contract counts "
                   "such a pixel in no bin (test the value before counting)."
                 : "A bin index was out of range: a pixel read as a signed char is -128 "
                   "to -1; read it as an unsigned byte (uint8_t), 0 to 255.",
             outcome->changed_counter == (int)format->guards.bins
                 ? " Or a loop over the bins (zeroing, committing) ran one past the last "
                   "(bin <= bins)."
                 : "");
}

/* ---------------------------------------------------------------------------------------- */
/* The diagnosis                                                                            */
/* ---------------------------------------------------------------------------------------- */

/* Whether got is expected less the pixels [from, from + length) of the image. */
static bool short_by_pixels(const struct pixel_format *format, const void *pixels,
                            uint64_t from, uint64_t length, const unsigned long long *expected,
                            const unsigned long long *got)
{
    unsigned long long missing[MAX_BINS] = {0};
    for (uint64_t i = from; i < from + length; i++) {
        uint32_t value = pixel_at(format, pixels, i);
        if (value < format->guards.bins)
            missing[value]++;
    }
    for (unsigned int bin = 0; bin < format->guards.bins; bin++)
        if (got[bin] + missing[bin] != expected[bin])
            return false;
    return true;
}

/* The bin that holds the counts of 255 missing from its own, every other bin right; or -1. */
static int misplaced_255(const struct pixel_format *format, const unsigned long long *expected,
                         const unsigned long long *got)
{
    const unsigned int last = format->guards.bins - 1;
    if (format->guards.bins != BYTE_BINS || got[last] >= expected[last])
        return -1;
    int other = -1;
    for (unsigned int bin = 0; bin < last; bin++) {
        if (got[bin] == expected[bin])
            continue;
        if (other >= 0 || got[bin] - expected[bin] != expected[last] - got[last])
            return -1;
        other = (int)bin;
    }
    return other;
}

/* What a wrong histogram most likely comes from, "(name): explanation", from its shape. */
static void diagnose(const struct pixel_format *format, const void *pixels, uint64_t count,
                     unsigned int threads_per_block, const unsigned long long *expected,
                     const unsigned long long *got, char *out, size_t size)
{
    const unsigned int bins = format->guards.bins;
    unsigned long long expected_total = bins_total(expected, bins);
    unsigned long long got_total = bins_total(got, bins);
    /* No bin can hold more than the pixels the kernel could have read. */
    const unsigned long long most = count + 2 * IMAGE_GUARD_BYTES;
    bool any_over = false, any_under = false, any_garbage = false,
         bins_at_block_size_lost = false, bins_at_block_size_right_or_lost = true,
         bins_below_block_size_right = true;
    for (unsigned int bin = 0; bin < bins; bin++) {
        any_over |= got[bin] > expected[bin];
        any_under |= got[bin] < expected[bin];
        any_garbage |= got[bin] > most;
        bool lost = got[bin] < expected[bin] || got[bin] > most;
        if (bin < threads_per_block) {
            bins_below_block_size_right &= got[bin] == expected[bin];
        } else {
            bins_at_block_size_lost |= lost;
            bins_at_block_size_right_or_lost &= lost || got[bin] == expected[bin];
        }
    }
    unsigned long long out_of_range = 0;
    for (uint64_t i = 0; format->small && i < count; i++)
        out_of_range += pixel_at(format, pixels, i) >= bins;

    if (got_total == 0 && expected_total > 0) {
        snprintf(out, size, "(nothing-counted): every bin is 0: nothing was counted, or the "
                            "counts never reached d_histogram (a missing launch, or a commit "
                            "that adds nothing).");
    } else if (threads_per_block > 0 && threads_per_block < bins && bins_below_block_size_right &&
               bins_at_block_size_lost && bins_at_block_size_right_or_lost) {
        snprintf(out, size,
                 "(bins-past-block-size): bins %u to %u are wrong (missing, or garbage) and the "
                 "bins below %u right, in blocks of %u threads: a block zeroes or commits its "
                 "bins one thread a bin (the slides' 'if (threadIdx.x < NUMHIST)'), which "
                 "assumes at least as many threads as bins. Deal the bins out in steps of "
                 "blockDim.x.",
                 threads_per_block, bins - 1, threads_per_block, threads_per_block);
    } else if (any_garbage) {
        snprintf(out, size, "(not-zeroed): the bins hold more than the image has pixels: "
                            "the histogram holds garbage on entry, and the counts were added "
                            "to it. Zero it before counting.");
    } else if (!any_under && any_over && got[format->guards.guard_element] > expected[format->guards.guard_element] &&
               got_total - expected_total <= 2 * IMAGE_GUARD_BYTES &&
               got_total - got[format->guards.guard_element] ==
                   expected_total - expected[format->guards.guard_element]) {
        snprintf(out, size,
                 "(read-past-end): the bin of value %u is %llu too high, and the grader puts "
                 "pixels of that value around the image: pixels outside it were read, past its "
                 "end or before its start (a missing bounds check, or a wide load past the end).",
                 format->guards.guard_element, got_total - expected_total);
    } else if (format->small && !any_under && any_over && out_of_range > 0 &&
               got_total - expected_total <= out_of_range) {
        snprintf(out, size,
                 "(out-of-range-counted): %llu more counts than pixels of value 0-15: pixels of "
                 "16 and above were counted in some bin (a value masked or wrapped into 0-15). "
                 "The contract counts them in no bin.",
                 got_total - expected_total);
    } else if (!any_over && bins == BYTE_BINS && got[bins - 1] < expected[bins - 1] &&
               expected_total - got_total == expected[bins - 1] - got[bins - 1]) {
        snprintf(out, size,
                 "(value-255-missing): every bin is right but that of 255, short by %llu: pixels "
                 "of value 255, the largest, were not counted%s. Look for a bound that stops "
                 "below 255 (< 255, or a loop over the values that ends before it), or 255 "
                 "taken for a marker.",
                 expected[bins - 1] - got[bins - 1],
                 count > 0 && pixel_at(format, pixels, count - 1) == bins - 1
                     ? " (the image's last pixel is 255: where the image ends off a 16-byte "
                       "boundary, it is in the tail after the last one)"
                     : "");
    } else if (!any_over && any_under) {
        uint64_t edge = 0;
        const char *which = NULL;
        for (uint64_t k = 1; k <= 64 && k <= count && !which; k++) {
            if (short_by_pixels(format, pixels, 0, k, expected, got))
                which = "head", edge = k;
            else if (short_by_pixels(format, pixels, count - k, k, expected, got))
                which = "tail", edge = k;
        }
        if (which)
            snprintf(out, size,
                     "(%s-missing): the %s %" PRIu64 " pixels of the image were not counted, the "
                     "rest were: %s",
                     which, which[0] == 'h' ? "first" : "last", edge,
                     which[0] == 'h'
                         ? "the pixels before the first 16-byte boundary (the head of a wide "
                           "load), or the first thread's share."
                         : "the pixels after the last 16-byte boundary (the tail of a wide load), "
                           "or a bound that stops short of the end.");
        else
            snprintf(out, size,
                     "(lost-updates): %llu counts short, spread over the bins: counts lost. An "
                     "add on a shared bin that is not atomic, bins committed before every "
                     "thread of the block has counted (a barrier), or blocks that never commit.",
                     expected_total - got_total);
    } else {
        int misplaced;
        bool multiplied = got_total > expected_total;
        unsigned long long factor = 0;
        for (unsigned int bin = 0; bin < bins && multiplied; bin++) {
            if (expected[bin] == 0) {
                multiplied = got[bin] == 0;
            } else if (got[bin] % expected[bin] != 0) {
                multiplied = false;
            } else {
                unsigned long long this_factor = got[bin] / expected[bin];
                multiplied = factor == 0 || factor == this_factor;
                factor = this_factor;
            }
        }
        if (multiplied)
            snprintf(out, size,
                     "(multiplied): every bin is %llu times the right count: each pixel counted "
                     "several times (every thread commits every bin, or the grid's threads "
                     "overlap).",
                     factor);
        else if (got_total == expected_total && (misplaced = misplaced_255(format, expected, got)) >= 0)
            snprintf(out, size,
                     "(value-255-misbinned): the count of 255 is short by %llu and that of %d "
                     "too high by as much, every other bin right: pixels of value 255 were "
                     "counted as %d. Read a pixel as an unsigned byte (uint8_t, 0 to 255), and "
                     "use it as the bin as it is.",
                     expected[bins - 1] - got[bins - 1], misplaced, misplaced);
        else if (got_total == expected_total)
            snprintf(out, size, "(wrong-bins): the right number of counts, in wrong bins: check "
                                "the bin index of a pixel.");
        else
            snprintf(out, size,
                     "(unknown): no single mistake explains these bins: compare them with the "
                     "expected ones above, and try the image in the demo.");
    }
}

void diagnose_image_histogram(bool small_pixels, const void *pixels, uint64_t count,
                              unsigned int threads_per_block, const unsigned long long *expected,
                              const unsigned long long *got, char *out, size_t size)
{
    diagnose(small_pixels ? &SMALL_FORMAT : &BYTE_FORMAT, pixels, count, threads_per_block,
             expected, got, out, size);
}

/* Fails the test, going on to its other images, with the wrong bins and the likely mistake. */
static void judge_runs(const char *where, const struct pixel_format *format, const void *pixels,
                       uint64_t count, unsigned int threads_per_block,
                       const unsigned long long *expected,
                       unsigned long long (*runs)[GUARDED_MAX_BINS],
                       int run_count)
{
    int wrong_run = -1;
    bool unstable = false, every_wrong_run_off_by_one_amount = true;
    unsigned long long amount;
    for (int run = 0; run < run_count; run++) {
        bool right = bins_equal(runs[run], expected, format->guards.bins);
        if (wrong_run < 0 && !right)
            wrong_run = run;
        unstable |= !bins_equal(runs[run], runs[0], format->guards.bins);
        every_wrong_run_off_by_one_amount &=
            right || bins_off_by_one_amount(runs[run], expected, format->guards.bins, &amount);
    }
    /* Runs that disagree only by their poison are bins never zeroed, not a race. */
    unstable &= !every_wrong_run_off_by_one_amount;
    if (wrong_run < 0)
        return;
    char table[4096] = "", cause[640];
    size_t used = 0;
    int rows = 0;
    used += (size_t)snprintf(table, sizeof table, "  %5s %20s %20s %20s\n", "value", "expected",
                             "got", "difference");
    for (unsigned int bin = 0; bin < format->guards.bins && used < sizeof table; bin++) {
        const unsigned long long *got = runs[wrong_run];
        if (got[bin] == expected[bin] && format->guards.bins > SMALL_BINS)
            continue; /* 256 rows would hide the wrong ones */
        if (rows++ == 24) {
            used += (size_t)snprintf(table + used, sizeof table - used, "  ... more bins wrong\n");
            break;
        }
        used += (size_t)snprintf(table + used, sizeof table - used, "  %5u %20llu %20llu %+20lld\n",
                                 bin, expected[bin], got[bin],
                                 (long long)(got[bin] - expected[bin]));
    }
    if (unstable)
        snprintf(cause, sizeof cause,
                 "(unstable): the runs on this image disagree: a race. Counts added to a shared "
                 "bin without an atomic, bins read before every thread has counted, or bins "
                 "counted into before every thread has zeroed them (a barrier missing).");
    else
        diagnose(format, pixels, count, threads_per_block, expected, runs[wrong_run], cause,
                 sizeof cause);
    cr_expect_fail("%s: wrong histogram on run %d of %d\n%s  likely cause %s", where,
                   wrong_run + 1, run_count, table, cause);
}

/* ---------------------------------------------------------------------------------------- */
/* Correctness                                                                              */
/* ---------------------------------------------------------------------------------------- */

/* A function under test, of either part, on the GPU or the CPU. Exactly one is set; the
 * guarded runs' context (guarded_runs.h). */
struct image_function {
    small_image_histogram *small;
    host_small_image_histogram *host_small;
    byte_image_histogram *bytes;
    const char *name;
    const char *image_name;
    unsigned int threads_per_block; /* part A on the GPU */
};

static void call_function(void *context, const void *pixels, uint64_t count,
                          unsigned long long *bins, int run)
{
    const struct image_function *function = context;
    if (function->host_small) {
        function->host_small(pixels, count, bins);
    } else if (function->small) {
        function->small(pixels, count, bins, function->threads_per_block);
        /* Part A's blocks are the caller's size: the bins below it need every thread. */
        if (count > 0 && run == 0) {
            char where[256];
            snprintf(where, sizeof where, "%s on %s", function->name, function->image_name);
            struct launch_shape_rule rule = {.threads_per_block = function->threads_per_block};
            expect_launched_in_shape(where, rule);
        }
    } else {
        function->bytes(pixels, count, bins);
    }
}

static void check_case(const char *function_name, const struct pixel_format *format,
                       const struct image_function *function, const struct image_case *image_case)
{
    struct grading_options options = grading_options();
    uint64_t count = 0;
    void *pixels = case_pixels(format, image_case, &options, &count);
    unsigned long long expected[MAX_BINS];
    cpu_histogram_of(format, pixels, count, expected);
    const bool on_host = function->host_small != NULL;
    struct image_function under_test = *function;
    under_test.name = function_name;
    under_test.image_name = image_case->name;
    under_test.threads_per_block = format->small && !on_host ? image_case->threads_per_block : 0;

    /* The student's function reads a copy between guard pixels and writes bins between guard
     * counters, on the CPU as on the GPU. */
    struct guarded_outcome *outcome = grading_malloc(sizeof *outcome);
    const struct guarded_input input = {pixels, count, 0, 0, on_host ? 0 : image_case->offset};
    if (on_host)
        guarded_run_on_host(&format->guards, &input, call_function, &under_test, outcome);
    else
        guarded_runs_on_gpu(&format->guards, &input, CHECK_RUNS, true, call_function,
                            &under_test, outcome);

    char where[512], problem[512];
    describe_case(where, sizeof where, function_name, image_case, under_test.threads_per_block,
                  &options, count);
    if (!outcome->inside) {
        wrote_outside(format, outcome, on_host ? "histogram" : "d_histogram", problem,
                      sizeof problem);
        cr_expect_fail("%s: %s", where, problem);
    } else if (!outcome->input_unchanged) {
        cr_expect_fail("%s: (image-modified): %s", where,
                       on_host ? "the image was modified; it is read-only."
                               : "the image, or the guard pixels around it, was modified. The "
                                 "input is read-only: count into the bins, never write to the "
                                 "image.");
    } else {
        judge_runs(where, format, pixels, count, under_test.threads_per_block, expected,
                   outcome->runs, outcome->runs_done);
    }
    free(outcome);
    free(pixels);
}

void check_small_image_group(const char *function_name, small_image_histogram *function,
                             enum image_group group)
{
    const struct image_function under_test = {.small = function};
    for (size_t c = 0; c < sizeof IMAGE_CASES / sizeof IMAGE_CASES[0]; c++)
        if (IMAGE_CASES[c].group == group)
            check_case(function_name, &SMALL_FORMAT, &under_test, &IMAGE_CASES[c]);
}

void check_host_small_image_group(const char *function_name, host_small_image_histogram *function,
                                  enum image_group group)
{
    const struct image_function under_test = {.host_small = function};
    for (size_t c = 0; c < sizeof IMAGE_CASES / sizeof IMAGE_CASES[0]; c++)
        if (IMAGE_CASES[c].group == group)
            check_case(function_name, &SMALL_FORMAT, &under_test, &IMAGE_CASES[c]);
}

void check_byte_image_group(const char *function_name, byte_image_histogram *function,
                            enum image_group group)
{
    const struct image_function under_test = {.bytes = function};
    for (size_t c = 0; c < sizeof IMAGE_CASES / sizeof IMAGE_CASES[0]; c++)
        if (IMAGE_CASES[c].group == group)
            check_case(function_name, &BYTE_FORMAT, &under_test, &IMAGE_CASES[c]);
}

void check_small_image_input_file(const char *function_name, small_image_histogram *function)
{
    const struct image_function under_test = {.small = function};
    check_case(function_name, &SMALL_FORMAT, &under_test, &INPUT_FILE_CASE);
}

void check_host_small_image_input_file(const char *function_name,
                                       host_small_image_histogram *function)
{
    const struct image_function under_test = {.host_small = function};
    check_case(function_name, &SMALL_FORMAT, &under_test, &INPUT_FILE_CASE);
}

void check_byte_image_input_file(const char *function_name, byte_image_histogram *function)
{
    const struct image_function under_test = {.bytes = function};
    check_case(function_name, &BYTE_FORMAT, &under_test, &INPUT_FILE_CASE);
}

void check_byte_image_past_4gib(const char *function_name, byte_image_histogram *function)
{
    /* 2^32 + 1 pixels of one value, then a 256-pixel tail of every value. Past 2^32 a 32-bit
     * index wraps around and counts the start again; that value's bin needs more than 32 bits,
     * in a block's counters too if one block counted them all. */
    const uint8_t value = 7;
    const uint64_t run = (1ull << 32) + 1, tail = 256, count = run + tail;
    take_turn_with_gpu_memory(count);

    uint8_t tail_pixels[256];
    for (uint64_t i = 0; i < tail; i++)
        tail_pixels[i] = (uint8_t)(i * 7 + 3); /* every value once */
    unsigned long long expected[BYTE_BINS], got[BYTE_BINS];
    cpu_byte_histogram(tail_pixels, tail, expected);
    expected[value] += run;

    /* The run of 7s is written on the GPU; the image is too large to copy back and compare. */
    struct image_function under_test = {.bytes = function};
    struct guarded_outcome *outcome = grading_malloc(sizeof *outcome);
    const struct guarded_input input = {tail_pixels, tail, run, value, 0};
    guarded_runs_on_gpu(&BYTE_FORMAT.guards, &input, 1, false, call_function, &under_test,
                        outcome);
    char problem[512] = "";
    if (!outcome->inside)
        wrote_outside(&BYTE_FORMAT, outcome, "d_histogram", problem, sizeof problem);
    memcpy(got, outcome->runs[0], sizeof got);
    free(outcome);
    cr_assert(problem[0] == '\0', "%s on an image of %" PRIu64 " pixels: %s", function_name,
              count, problem);
    if (bins_equal(got, expected, BYTE_BINS))
        return;
    /* Only the signs a 32-bit variable leaves are blamed on one; anything else is left to the
     * smaller images, whose diagnosis sees every pixel. */
    const unsigned long long wrap = 1ull << 32;
    unsigned long long got_total = bins_total(got, BYTE_BINS);
    const char *cause =
        got_total == count - wrap
            ? "(32-bit-index): a 32-bit size or index: only the first 257 pixels (the count "
              "modulo 2^32) were counted. Past 2^32 an unsigned int wraps around to 0; pass and "
              "compute sizes and indices in uint64_t."
        : got[value] != expected[value] && got[value] % wrap == expected[value] % wrap
            ? "(32-bit-count): a 32-bit count: the bin of value 7 holds more than 2^32 and came "
              "back short by a multiple of 2^32. Count in unsigned long long, and bound what one "
              "block counts in 32-bit shared counters."
        : got[value] > expected[value]
            ? "(32-bit-index): a 32-bit index: the start of the image was counted again. Past 2^32 "
              "an unsigned int wraps around to 0; compute indices and sizes in uint64_t."
            : "(unknown): not one this test can name; if the smaller images pass, look for a "
              "32-bit index, size or count (the image is larger than 2^32 pixels).";
    cr_assert_fail("%s on an image of %" PRIu64 " pixels (2^32 + 1 of value 7, then 256 of every "
                   "value): wrong histogram: value 7 expected %llu, got %llu\n  likely cause %s",
                   function_name, count, expected[value], got[value], cause);
}

/* ---------------------------------------------------------------------------------------- */
/* Speed                                                                                    */
/* ---------------------------------------------------------------------------------------- */

/* The image workload: every kind of image (the photo as slices of it), or the student's file. */
struct image_policy {
    const struct pixel_format *format;
    const struct grading_options *options;
    const uint8_t *file_bytes;
    uint64_t file_length;
};

static enum timed_format timed_format_of(const struct pixel_format *format)
{
    return format->small ? TIMED_SMALL_PIXELS : TIMED_BYTE_PIXELS;
}

static void open_image_input(const struct speed_workload *workload, int index, char *name,
                             size_t name_size, struct timed_source *source)
{
    const struct image_policy *policy = workload->policy;
    enum timed_format format = timed_format_of(policy->format);
    if (policy->file_bytes) {
        const char *slash = strrchr(policy->options->input_file, '/');
        snprintf(name, name_size, "%s", slash ? slash + 1 : policy->options->input_file);
        *source = timed_source_of_material(format, TIMED_WHOLE, policy->file_bytes,
                                           policy->file_length);
        return;
    }
    snprintf(name, name_size, "%s", image_kind_name((enum image_kind)index));
    if (index == IMAGE_PHOTO) {
        uint64_t pixels = 0;
        uint8_t *photo = shipped_photo(&pixels);
        *source = timed_source_of_material(format, TIMED_SLICES, photo, pixels);
        free(photo);
    } else {
        *source = timed_source_generated(format, index);
    }
}

/* Part A's timed runs launch in the caller's blocks, as its correctness calls must. */
static bool launches_of_the_callers_blocks(const void *context, int calls, char *why,
                                           size_t why_size)
{
    const struct image_contender *contender = context;
    struct launch_shape_rule rule = {.threads_per_block = contender->threads_per_block};
    return launched_each_call_in_shape(calls, rule, why, why_size);
}

static void call_image_contender(const void *context, const void *pixels, uint64_t count,
                                 unsigned long long *bins)
{
    const struct image_contender *contender = context;
    if (contender->small)
        contender->small(pixels, count, bins, contender->threads_per_block);
    else if (contender->bytes)
        contender->bytes(pixels, count, bins);
    else
        contender->with_context(contender->context, pixels, count, bins);
}

void report_image_speed(bool small_pixels, uint64_t call_bytes,
                        const struct image_contender *contenders, int count,
                        const struct speed_table *tables, int table_count)
{
    const struct pixel_format *format = small_pixels ? &SMALL_FORMAT : &BYTE_FORMAT;
    struct grading_options options = grading_options();
    struct image_policy policy = {.format = format, .options = &options};
    struct speed_workload workload = {
        .element_name = "image", .format = timed_format_of(format),
        .elements = timed_call_bytes(call_bytes) / format->guards.element_bytes,
        .result_counters = format->guards.bins,
        .default_calls = speed_default_calls(timed_call_bytes(call_bytes)), .result_initial_byte = POISON_BYTE,
        .input_count = IMAGE_KIND_COUNT, .open_input = open_image_input, .policy = &policy};
    if (options.input_file) {
        uint8_t *bytes = load_or_fail(options.input_file, &policy.file_length);
        policy.file_bytes = bytes;
        workload.elements = policy.file_length;
        workload.input_count = 1;
        workload.default_calls = speed_default_calls(policy.file_length * format->guards.element_bytes);
    }
    cr_assert(count <= MAX_SPEED_CONTENDERS, "report_image_speed: at most %d contenders",
              MAX_SPEED_CONTENDERS);
    struct timed_contender timed[MAX_SPEED_CONTENDERS];
    for (int c = 0; c < count; c++)
        timed[c] = (struct timed_contender){.label = contenders[c].label,
                                            .student = contenders[c].student,
                                            .calls = contenders[c].calls,
                                            .call = call_image_contender,
                                            .context = &contenders[c],
                                            .launches_are_right =
                                                contenders[c].small ? launches_of_the_callers_blocks
                                                                    : NULL};
    static struct speed_results results;
    time_contenders(&workload, timed, count, &results);

    char description[1024];
    uint64_t input_bytes = workload.elements * format->guards.element_bytes;
    if (policy.file_bytes) {
        int l2_bytes = gpu_facts().l2_cache_bytes;
        snprintf(description, sizeof description,
                 "  input: %s (%" PRIu64 " bytes%s), with %u pixels of every %u Ki replaced by "
                 "random ones, new for every run\n%s",
                 options.input_file, policy.file_length,
                 format->small ? " as 32-bit pixels, each byte >> 4" : "",
                 TIMED_REPLACED_PER_SEGMENT, TIMED_SEGMENT_ELEMENTS >> 10,
                 input_bytes < (uint64_t)l2_bytes
                     ? "  note: this image fits in the GPU's L2 cache, so these times measure "
                       "the cache, not memory; use a larger file for figures that hold for big "
                       "images\n"
                     : "");
    } else {
        snprintf(description, sizeof description,
                 "  inputs: %" PRIu64 " MiB a call of each kind of image (the photo: slices of it "
                 "from random places), made fresh for every run (seed %" PRIu64 ")%s; more than "
                 "the L2 cache holds\n",
                 input_bytes >> 20, options.seed,
                 format->small ? ", 32-bit pixels of the kind's bytes >> 4" : "");
    }
    speed_tables_report(&workload, timed, count, &results, tables, table_count, description);
    free((void *)policy.file_bytes);
}
