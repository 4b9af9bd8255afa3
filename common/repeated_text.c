#include "repeated_text.h"

#include "cuda_check.h"
#include "reference.h"

#include <cuda_runtime.h>

void repeat_on_device(char *d_text, uint64_t length, const char *block, uint64_t block_length)
{
    uint64_t first = block_length < length ? block_length : length;
    CUDA_CHECK(cudaMemcpy(d_text, block, first, cudaMemcpyHostToDevice));
    for (uint64_t filled = first; filled < length; filled *= 2) {
        uint64_t piece = filled < length - filled ? filled : length - filled;
        CUDA_CHECK(cudaMemcpy(d_text + filled, d_text, piece, cudaMemcpyDeviceToDevice));
    }
}

void histogram_of_repeated(const char *block, uint64_t block_length, uint64_t length,
                           unsigned long long histogram[HISTOGRAM_BINS])
{
    if (block_length == 0 || length == 0) {
        cpu_histogram(block, 0, histogram);
        return;
    }
    unsigned long long whole[HISTOGRAM_BINS], part[HISTOGRAM_BINS];
    cpu_histogram(block, block_length, whole);
    cpu_histogram(block, length % block_length, part);
    histogram_of_repetition(block_length, length, HISTOGRAM_BINS, whole, part, histogram);
}

void histogram_of_repetition(uint64_t block_length, uint64_t length, int bins,
                             const unsigned long long *whole, const unsigned long long *part,
                             unsigned long long *histogram)
{
    for (int bin = 0; bin < bins; bin++)
        histogram[bin] = block_length ? whole[bin] * (length / block_length) + part[bin] : 0;
}
