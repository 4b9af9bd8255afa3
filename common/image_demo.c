#include "image_demo.h"

#include "compare.h"
#include "cuda_check.h"
#include "image_reference.h"
#include "images.h"
#include "inputs.h"

#include <cuda_runtime.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SMALL_BINS 16
#define BYTE_BINS 256
#define DEFAULT_IMAGE KIT_DATA_FOLDER "/" PHOTO_FILE_NAME
#define DEFAULT_THREADS_PER_BLOCK 256
/* Part B's table lists the wrong bins only: 256 rows of right ones would hide them. */
#define MAX_WRONG_ROWS 16

/* Every bin when all_rows, else the wrong ones (at most MAX_WRONG_ROWS). */
static void print_bins(const unsigned long long *expected, const unsigned long long *got,
                       int bins, bool all_rows)
{
    printf("  %5s %20s %20s %20s\n", "value", "expected", "got", "difference");
    int printed = 0;
    for (int bin = 0; bin < bins; bin++) {
        if (!all_rows && expected[bin] == got[bin])
            continue;
        if (!all_rows && printed++ == MAX_WRONG_ROWS) {
            printf("  ... and more wrong bins\n");
            break;
        }
        printf("  %5d %20llu %20llu %+20lld\n", bin, expected[bin], got[bin],
               (long long)(got[bin] - expected[bin]));
    }
    if (!all_rows && printed == 0)
        printf("  every one of the %d bins as expected\n", bins);
}

static void report(const char *name, const unsigned long long *expected,
                   const unsigned long long *got, int bins, float ms, int *wrong)
{
    bool right = bins_equal(expected, got, bins);
    *wrong += !right;
    printf("\n%s: %s", name, right ? "right" : "WRONG");
    if (ms >= 0)
        printf(", %.3f ms (one run, start-up costs included: ./grade times properly)", ms);
    printf("\n");
    print_bins(expected, got, bins, bins == SMALL_BINS);
}

/* Runs one GPU function between two events; returns its time in ms. */
typedef void (*demo_call)(const void *entry, const void *d_input, uint64_t pixels,
                          unsigned long long *d_histogram, unsigned int threads_per_block);

static void call_small(const void *entry, const void *d_input, uint64_t pixels,
                       unsigned long long *d_histogram, unsigned int threads_per_block)
{
    ((const struct small_demo_entry *)entry)->function(d_input, pixels, d_histogram,
                                                       threads_per_block);
}

static void call_byte(const void *entry, const void *d_input, uint64_t pixels,
                      unsigned long long *d_histogram, unsigned int threads_per_block)
{
    (void)threads_per_block;
    ((const struct byte_demo_entry *)entry)->function(d_input, pixels, d_histogram);
}

static float timed_call(demo_call call, const void *entry, const void *d_input, uint64_t pixels,
                        unsigned long long *d_histogram, unsigned int threads_per_block)
{
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    CUDA_CHECK(cudaEventRecord(start, 0));
    call(entry, d_input, pixels, d_histogram, threads_per_block);
    CUDA_CHECK(cudaEventRecord(stop, 0));
    CUDA_CHECK(cudaEventSynchronize(stop));
    CUDA_CHECK(cudaGetLastError());
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    return ms;
}

static int usage(const char *program)
{
    fprintf(stderr,
            "usage: %s [FILE [THREADS_PER_BLOCK]]\n  counts the pixels of FILE (a binary PGM, or "
            "any file's bytes), or of %s; part A in blocks of THREADS_PER_BLOCK threads (1 to "
            "1024, default %d)\n",
            program, DEFAULT_IMAGE, DEFAULT_THREADS_PER_BLOCK);
    return 2;
}

int run_image_demo(int argc, char **argv, host_small_image_histogram *host,
                   const struct small_demo_entry *small, int small_count,
                   const struct byte_demo_entry *bytes, int byte_count)
{
    if (argc > 3 || (argc >= 2 && argv[1][0] == '-'))
        return usage(argv[0]);
    unsigned int threads_per_block = DEFAULT_THREADS_PER_BLOCK;
    if (argc == 3) {
        char *end = NULL;
        unsigned long value = strtoul(argv[2], &end, 10);
        if (*end || value < 1 || value > 1024)
            return usage(argv[0]);
        threads_per_block = (unsigned int)value;
    }
    const char *path = argc >= 2 ? argv[1] : DEFAULT_IMAGE;
    uint8_t *pixels = NULL;
    uint64_t count = 0;
    char error[512];
    if (load_image_input(path, &pixels, &count, error, sizeof error) != 0) {
        fprintf(stderr, "%s: %s\n", argv[0], error);
        return 2;
    }
    printf("image: %s, %llu pixels; part A counts them >> 4 (16 levels), in blocks of %u "
           "threads\n",
           path, (unsigned long long)count, threads_per_block);

    uint32_t *small_pixels = malloc(count ? count * sizeof *small_pixels : 1);
    if (!small_pixels) {
        fprintf(stderr, "%s: out of host memory\n", argv[0]);
        return 1;
    }
    widen_to_small_pixels(pixels, count, small_pixels);
    unsigned long long expected[BYTE_BINS], got[BYTE_BINS];
    int wrong = 0;

    printf("\n== Part A: 16 bins\n");
    cpu_small_histogram(small_pixels, count, SMALL_BINS, expected);
    memset(got, 0xA5, sizeof got);
    host(small_pixels, count, got);
    report("lab9_histogram16_host", expected, got, SMALL_BINS, -1, &wrong);

    void *d_input = NULL;
    unsigned long long *d_histogram = NULL;
    CUDA_CHECK(cudaMalloc(&d_input, count ? count * sizeof *small_pixels : 1));
    CUDA_CHECK(cudaMalloc((void **)&d_histogram, sizeof got));
    CUDA_CHECK(cudaMemcpy(d_input, small_pixels, count * sizeof *small_pixels,
                          cudaMemcpyHostToDevice));
    for (int e = 0; e < small_count; e++) {
        float ms = timed_call(call_small, &small[e], d_input, count, d_histogram,
                              threads_per_block);
        CUDA_CHECK(cudaMemcpy(got, d_histogram, SMALL_BINS * sizeof *got, cudaMemcpyDeviceToHost));
        report(small[e].name, expected, got, SMALL_BINS, ms, &wrong);
    }

    printf("\n== Part B: 256 bins (only wrong bins are listed)\n");
    cpu_byte_histogram(pixels, count, expected);
    CUDA_CHECK(cudaMemcpy(d_input, pixels, count, cudaMemcpyHostToDevice));
    for (int e = 0; e < byte_count; e++) {
        float ms = timed_call(call_byte, &bytes[e], d_input, count, d_histogram, 0);
        CUDA_CHECK(cudaMemcpy(got, d_histogram, sizeof got, cudaMemcpyDeviceToHost));
        report(bytes[e].name, expected, got, BYTE_BINS, ms, &wrong);
    }

    CUDA_CHECK(cudaFree(d_input));
    CUDA_CHECK(cudaFree(d_histogram));
    free(small_pixels);
    free(pixels);
    return wrong ? 1 : 0;
}
