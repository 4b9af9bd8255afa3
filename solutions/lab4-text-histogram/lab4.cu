// Lab 4 reference solution: the text histogram, sequential and with global atomics.
#include "lab4.h"

#include "cuda_check.h"

void lab4_histogram_sequential(const char *text, uint64_t length,
                               unsigned long long histogram[HISTOGRAM_BINS])
{
    for (int bin = 0; bin < HISTOGRAM_BINS; bin++)
        histogram[bin] = 0;
    for (uint64_t i = 0; i < length; i++) {
        // char may be signed: a byte of 0x80 or more gives a negative position, which the
        // lower bound of the test rejects.
        int position = text[i] - 'a';
        if (position >= 0 && position < 26)
            histogram[position / LETTERS_PER_BIN]++;
    }
}

__global__ void histogram_atomic_kernel(const char *text, uint64_t length,
                                        unsigned long long *histogram)
{
    // 64-bit index: past 2^32 bytes, an index computed in unsigned int (blockIdx.x * blockDim.x
    // is one) wraps around to the start of the text.
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < length) {
        int position = text[i] - 'a';
        if (position >= 0 && position < 26)
            atomicAdd(&histogram[position / LETTERS_PER_BIN], 1ULL);
    }
}

void lab4_histogram_atomic(const char *d_text, uint64_t length, unsigned long long *d_histogram)
{
    // The kernel only adds, so the bins must start at zero.
    CUDA_CHECK(cudaMemset(d_histogram, 0, HISTOGRAM_BINS * sizeof *d_histogram));
    if (length == 0)
        return; // a grid of 0 blocks is an invalid launch

    const unsigned int threads_per_block = 256;
    uint64_t blocks = (length + threads_per_block - 1) / threads_per_block;
    histogram_atomic_kernel<<<(unsigned int)blocks, threads_per_block>>>(d_text, length,
                                                                        d_histogram);
    CUDA_CHECK_LAUNCH();
}
