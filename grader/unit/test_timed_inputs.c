/* The GPU's timed inputs (common/timed_inputs.h): the histogram the generator gives is the
 * histogram of what it wrote, every call and every run is new, and no input is a block
 * repeated. They need a GPU; without one they skip. */
#include "timed_inputs.h"

#include "cuda_check.h"
#include "grading.h"
#include "images.h"
#include "inputs.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#define CALLS 3
/* Four segments and a part: a short last segment is made too. */
#define ELEMENTS (4 * TIMED_SEGMENT_ELEMENTS + 12345)
#define STRIDE ((ELEMENTS * 4 + 255) / 256 * 256)

static void host_histogram(enum timed_format format, const uint8_t *input, uint64_t count,
                           unsigned long long *bins)
{
    memset(bins, 0, timed_format_bins(format) * sizeof *bins);
    for (uint64_t i = 0; i < count; i++) {
        unsigned int element = format == TIMED_SMALL_PIXELS ? ((const uint32_t *)input)[i] : input[i];
        if (format == TIMED_LETTERS) {
            if (element >= 'a' && element <= 'z')
                bins[(element - 'a') / 4]++;
        } else {
            cr_assert(element < timed_format_bins(format), "an element of value %u", element);
            bins[element]++;
        }
    }
}

/* Makes one run of source with seed; checks each call against its histogram; returns the
 * inputs (malloc'ed, CALLS x STRIDE bytes). */
static uint8_t *checked_run(const struct timed_source *source, uint64_t seed, const char *what)
{
    void *d_inputs = NULL;
    unsigned long long *d_expected = NULL;
    unsigned int bins = timed_format_bins(source->format);
    CUDA_CHECK(cudaMalloc(&d_inputs, (size_t)CALLS * STRIDE));
    CUDA_CHECK(cudaMalloc((void **)&d_expected, CALLS * bins * sizeof *d_expected));
    make_timed_inputs(source, seed, d_inputs, STRIDE, CALLS, ELEMENTS, d_expected);
    uint8_t *inputs = malloc((size_t)CALLS * STRIDE);
    unsigned long long *expected = malloc(CALLS * bins * sizeof *expected), got[256];
    cr_assert(inputs && expected);
    CUDA_CHECK(cudaMemcpy(inputs, d_inputs, (size_t)CALLS * STRIDE, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(expected, d_expected, CALLS * bins * sizeof *expected,
                          cudaMemcpyDeviceToHost));
    for (int c = 0; c < CALLS; c++) {
        host_histogram(source->format, inputs + (size_t)c * STRIDE, ELEMENTS, got);
        cr_expect(memcmp(got, expected + (size_t)c * bins, bins * sizeof *got) == 0,
                  "%s, call %d: the generator's histogram is not that of what it wrote", what, c);
    }
    free(expected);
    CUDA_CHECK(cudaFree(d_inputs));
    CUDA_CHECK(cudaFree(d_expected));
    return inputs;
}

static void check_source(const struct timed_source *source, const char *what)
{
    size_t bytes = ELEMENTS * timed_format_element_bytes(source->format);
    uint8_t *run = checked_run(source, 1, what), *again = checked_run(source, 1, what),
            *next = checked_run(source, 2, what);
    cr_expect(memcmp(run, again, (size_t)CALLS * STRIDE) == 0, "%s: one seed, two inputs", what);
    for (int c = 0; c < CALLS; c++) {
        const uint8_t *input = run + (size_t)c * STRIDE;
        cr_expect(memcmp(input, next + (size_t)c * STRIDE, bytes) != 0,
                  "%s, call %d: two runs' seeds gave the same input", what, c);
        if (c > 0)
            cr_expect(memcmp(input, run, bytes) != 0, "%s: calls %d and 0 have the same input",
                      what, c);
        /* No segment repeats another: nothing can be counted once and multiplied. */
        size_t segment = TIMED_SEGMENT_ELEMENTS * timed_format_element_bytes(source->format);
        for (size_t s = 1; (s + 1) * segment <= bytes; s++)
            cr_expect(memcmp(input, input + s * segment, segment) != 0,
                      "%s, call %d: segment %zu repeats segment 0", what, c, s);
    }
    free(run);
    free(again);
    free(next);
}

TestSuite(timed_inputs, .init = require_gpu);

Test(timed_inputs, every_text_kind_histogram_is_of_what_was_written)
{
    for (int kind = 0; kind < TEXT_KIND_COUNT; kind++) {
        struct timed_source source = timed_source_generated(TIMED_LETTERS, kind);
        check_source(&source, text_kind_name((enum text_kind)kind));
        timed_source_destroy(&source);
    }
}

Test(timed_inputs, every_image_kind_in_both_pixel_formats)
{
    static const enum timed_format formats[] = {TIMED_BYTE_PIXELS, TIMED_SMALL_PIXELS};
    for (int f = 0; f < 2; f++)
        for (int kind = IMAGE_NOISE; kind < IMAGE_KIND_COUNT; kind++) {
            struct timed_source source = timed_source_generated(formats[f], kind);
            check_source(&source, image_kind_name((enum image_kind)kind));
            timed_source_destroy(&source);
        }
}

Test(timed_inputs, slices_and_a_whole_file)
{
    /* Material shorter than an input, so that slices wrap around it. */
    const char material[] = "the quick brown fox jumps over the lazy dog, again and AGAIN 0123";
    struct timed_source slices = timed_source_of_material(TIMED_LETTERS, TIMED_SLICES, material,
                                                          sizeof material - 1);
    check_source(&slices, "slices");
    timed_source_destroy(&slices);
    struct timed_source whole = timed_source_of_material(TIMED_BYTE_PIXELS, TIMED_WHOLE, material,
                                                         sizeof material - 1);
    check_source(&whole, "a whole file");
    timed_source_destroy(&whole);
}
