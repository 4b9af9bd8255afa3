#include "cub_histogram.h"

#include "cuda_check.h"

#include <cub/device/device_histogram.cuh>
#include <stdio.h>
#include <stdlib.h>

#define LETTERS 26
#define BYTE_VALUES 256

/* CUB's scratch memory and 32-bit counts, for inputs up to max_length bytes. */
struct cub_counting {
    void *d_scratch;
    size_t scratch_bytes;
    unsigned int *d_counts;
    uint64_t max_length;
    const char *name; /* for messages */
};
struct cub_histogram {
    struct cub_counting counting;
};
struct cub_byte_histogram {
    struct cub_counting counting;
};

/* HistogramEven over bins consecutive byte values from `first`: one bin each. */
static cudaError_t count_bytes(const struct cub_counting *counting, size_t &scratch_bytes,
                               const void *d_bytes, uint64_t length, int first, int bins)
{
    return cub::DeviceHistogram::HistogramEven(counting->d_scratch, scratch_bytes,
                                               (const unsigned char *)d_bytes, counting->d_counts,
                                               bins + 1, first, first + bins, (long long)length);
}

static void counting_create(struct cub_counting *counting, const char *name, uint64_t max_length,
                            int first, int bins)
{
    // CUB's counters are 32-bit: every byte of a longer input could overflow one.
    if (max_length > 0xFFFFFFFFull) {
        fprintf(stderr, "%s: %llu bytes is more than CUB's 32-bit counters can count\n", name,
                (unsigned long long)max_length);
        exit(EXIT_FAILURE);
    }
    *counting = (struct cub_counting){NULL, 0, NULL, max_length, name};
    CUDA_CHECK(cudaMalloc((void **)&counting->d_counts, bins * sizeof(unsigned int)));
    CUDA_CHECK(count_bytes(counting, counting->scratch_bytes, NULL, max_length, first, bins));
    CUDA_CHECK(cudaMalloc(&counting->d_scratch,
                          counting->scratch_bytes ? counting->scratch_bytes : 1));
}

static void counting_destroy(struct cub_counting *counting)
{
    CUDA_CHECK(cudaFree(counting->d_scratch));
    CUDA_CHECK(cudaFree(counting->d_counts));
}

static void counting_run(struct cub_counting *counting, const void *d_bytes, uint64_t length,
                         int first, int bins)
{
    if (length > counting->max_length) {
        fprintf(stderr, "%s: %llu bytes, but the scratch memory was made for %llu\n",
                counting->name, (unsigned long long)length,
                (unsigned long long)counting->max_length);
        exit(EXIT_FAILURE);
    }
    size_t scratch_bytes = counting->scratch_bytes;
    CUDA_CHECK(count_bytes(counting, scratch_bytes, d_bytes, length, first, bins));
}

template <typename T> static T *checked_calloc(const char *name)
{
    T *made = (T *)calloc(1, sizeof(T));
    if (!made) {
        fprintf(stderr, "%s: out of host memory\n", name);
        exit(EXIT_FAILURE);
    }
    return made;
}

__global__ void fold_letters_into_bins(const unsigned int *letter_counts,
                                       unsigned long long *histogram)
{
    unsigned int bin = threadIdx.x;
    if (bin >= HISTOGRAM_BINS)
        return;
    unsigned long long count = 0;
    for (unsigned int letter = bin * LETTERS_PER_BIN;
         letter < (bin + 1) * LETTERS_PER_BIN && letter < LETTERS; letter++)
        count += letter_counts[letter];
    histogram[bin] = count;
}

__global__ void widen_counts(const unsigned int *counts, unsigned long long *histogram)
{
    histogram[threadIdx.x] = counts[threadIdx.x];
}

struct cub_histogram *cub_histogram_create(uint64_t max_length)
{
    struct cub_histogram *cub = checked_calloc<struct cub_histogram>("cub_histogram_create");
    counting_create(&cub->counting, "cub_histogram", max_length, 'a', LETTERS);
    return cub;
}

void cub_histogram_destroy(struct cub_histogram *cub)
{
    if (!cub)
        return;
    counting_destroy(&cub->counting);
    free(cub);
}

void cub_histogram_run(struct cub_histogram *cub, const char *d_text, uint64_t length,
                       unsigned long long *d_histogram)
{
    counting_run(&cub->counting, d_text, length, 'a', LETTERS);
    fold_letters_into_bins<<<1, 32>>>(cub->counting.d_counts, d_histogram);
    CUDA_CHECK_LAUNCH();
}

struct cub_byte_histogram *cub_byte_histogram_create(uint64_t max_pixels)
{
    struct cub_byte_histogram *cub =
        checked_calloc<struct cub_byte_histogram>("cub_byte_histogram_create");
    counting_create(&cub->counting, "cub_byte_histogram", max_pixels, 0, BYTE_VALUES);
    return cub;
}

void cub_byte_histogram_destroy(struct cub_byte_histogram *cub)
{
    if (!cub)
        return;
    counting_destroy(&cub->counting);
    free(cub);
}

void cub_byte_histogram_run(struct cub_byte_histogram *cub, const uint8_t *d_pixels,
                            uint64_t pixels, unsigned long long *d_histogram)
{
    counting_run(&cub->counting, d_pixels, pixels, 0, BYTE_VALUES);
    widen_counts<<<1, BYTE_VALUES>>>(cub->counting.d_counts, d_histogram);
    CUDA_CHECK_LAUNCH();
}
