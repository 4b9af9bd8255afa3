#include "cub_histogram.h"

#include "cuda_check.h"

#include <cub/device/device_histogram.cuh>
#include <stdio.h>
#include <stdlib.h>

#define LETTERS 26

struct cub_histogram {
    void *d_scratch;
    size_t scratch_bytes;
    unsigned int *d_letter_counts;
    uint64_t max_length;
};

static cudaError_t letter_histogram(void *d_scratch, size_t &scratch_bytes, const char *d_text,
                                    unsigned int *d_letter_counts, uint64_t length)
{
    // One bin per letter: LETTERS + 1 levels from 'a' to '{' (the byte after 'z').
    return cub::DeviceHistogram::HistogramEven(d_scratch, scratch_bytes,
                                               (const unsigned char *)d_text, d_letter_counts,
                                               LETTERS + 1, (int)'a', (int)'a' + LETTERS,
                                               (long long)length);
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

struct cub_histogram *cub_histogram_create(uint64_t max_length)
{
    // CUB's counters are 32-bit: every letter of a longer text could overflow one.
    if (max_length > 0xFFFFFFFFull) {
        fprintf(stderr, "cub_histogram_create: %llu bytes is more than CUB's 32-bit counters "
                        "can count\n",
                (unsigned long long)max_length);
        exit(EXIT_FAILURE);
    }
    struct cub_histogram *cub = (struct cub_histogram *)calloc(1, sizeof *cub);
    if (!cub) {
        fprintf(stderr, "cub_histogram_create: out of host memory\n");
        exit(EXIT_FAILURE);
    }
    cub->max_length = max_length;
    CUDA_CHECK(cudaMalloc((void **)&cub->d_letter_counts, LETTERS * sizeof(unsigned int)));
    CUDA_CHECK(letter_histogram(NULL, cub->scratch_bytes, NULL, cub->d_letter_counts,
                                max_length));
    CUDA_CHECK(cudaMalloc(&cub->d_scratch, cub->scratch_bytes ? cub->scratch_bytes : 1));
    return cub;
}

void cub_histogram_destroy(struct cub_histogram *cub)
{
    if (!cub)
        return;
    CUDA_CHECK(cudaFree(cub->d_scratch));
    CUDA_CHECK(cudaFree(cub->d_letter_counts));
    free(cub);
}

void cub_histogram_run(struct cub_histogram *cub, const char *d_text, uint64_t length,
                       unsigned long long *d_histogram)
{
    if (length > cub->max_length) {
        fprintf(stderr, "cub_histogram_run: %llu bytes, but the scratch memory was made for %llu\n",
                (unsigned long long)length, (unsigned long long)cub->max_length);
        exit(EXIT_FAILURE);
    }
    size_t scratch_bytes = cub->scratch_bytes;
    CUDA_CHECK(letter_histogram(cub->d_scratch, scratch_bytes, d_text, cub->d_letter_counts,
                                length));
    fold_letters_into_bins<<<1, 32>>>(cub->d_letter_counts, d_histogram);
    CUDA_CHECK_LAUNCH();
}
