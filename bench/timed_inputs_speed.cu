/* make bench-inputs: how long the grader's generator of timed inputs (common/timed_inputs.cu)
 * takes to make one run of lab 6's speed test, 32 calls of 64 MiB, for every source the graders
 * use. A grading makes a few hundred such runs, so this is a share of every ./grade's time. */
#include "cuda_check.h"
#include "images.h"
#include "inputs.h"
#include "timed_inputs.h"

#include <stdio.h>
#include <stdlib.h>

#define CALLS 32
#define CALL_BYTES (64ull << 20)
#define WARM_UPS 1
#define TIMED_RUNS 7
#define MATERIAL_BYTES (1u << 20)

static int compare_floats(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* The median milliseconds of making one run of source, each run from a seed of its own. */
static float median_ms(const struct timed_source *source, uint64_t elements, void *d_inputs,
                       unsigned long long *d_expected)
{
    float ms[TIMED_RUNS];
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    for (int run = 0; run < WARM_UPS + TIMED_RUNS; run++) {
        CUDA_CHECK(cudaEventRecord(start, 0));
        make_timed_inputs(source, 1000 + run, d_inputs, CALL_BYTES, CALLS, elements, d_expected);
        CUDA_CHECK(cudaEventRecord(stop, 0));
        CUDA_CHECK(cudaEventSynchronize(stop));
        if (run >= WARM_UPS)
            CUDA_CHECK(cudaEventElapsedTime(&ms[run - WARM_UPS], start, stop));
    }
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    qsort(ms, TIMED_RUNS, sizeof *ms, compare_floats);
    return ms[TIMED_RUNS / 2];
}

static void time_source(const char *format_name, const char *source_name,
                        struct timed_source *source, void *d_inputs,
                        unsigned long long *d_expected)
{
    uint64_t elements = CALL_BYTES / timed_format_element_bytes(source->format);
    printf("%-12s %-16s %8.3f ms\n", format_name, source_name,
           median_ms(source, elements, d_inputs, d_expected));
    timed_source_destroy(source);
}

int main(void)
{
    void *d_inputs;
    unsigned long long *d_expected;
    CUDA_CHECK(cudaMalloc(&d_inputs, CALLS * CALL_BYTES));
    CUDA_CHECK(cudaMalloc((void **)&d_expected, CALLS * 256 * sizeof *d_expected));
    printf("one run of %d calls of %llu MiB, median of %d after %d warm-up\n", CALLS,
           CALL_BYTES >> 20, TIMED_RUNS, WARM_UPS);
    for (int kind = 0; kind < TEXT_KIND_COUNT; kind++) {
        struct timed_source source = timed_source_generated(TIMED_LETTERS, kind);
        time_source("letters", text_kind_name((enum text_kind)kind), &source, d_inputs, d_expected);
    }
    char *text = (char *)malloc(MATERIAL_BYTES);
    if (!text) {
        fprintf(stderr, "make bench-inputs: out of host memory\n");
        return EXIT_FAILURE;
    }
    generate_text(TEXT_ENGLISH_LIKE, 5, text, MATERIAL_BYTES);
    struct timed_source slices = timed_source_of_material(TIMED_LETTERS, TIMED_SLICES, text,
                                                          MATERIAL_BYTES);
    time_source("letters", "slices", &slices, d_inputs, d_expected);
    free(text);
    static const enum timed_format pixel_formats[] = {TIMED_BYTE_PIXELS, TIMED_SMALL_PIXELS};
    static const char *const pixel_format_names[] = {"byte pixels", "small pixels"};
    for (int f = 0; f < 2; f++)
        for (int kind = IMAGE_NOISE; kind < IMAGE_KIND_COUNT; kind++) {
            struct timed_source source = timed_source_generated(pixel_formats[f], kind);
            time_source(pixel_format_names[f], image_kind_name((enum image_kind)kind), &source,
                        d_inputs, d_expected);
        }
    CUDA_CHECK(cudaFree(d_inputs));
    CUDA_CHECK(cudaFree(d_expected));
    return 0;
}
