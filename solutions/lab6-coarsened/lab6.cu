// Lab 6 reference solution: coarsened histograms, contiguous and interleaved.
#include "lab6.h"

#include "cuda_check.h"

static const unsigned int threads_per_block = 256;

// The steps every privatized kernel shares; both kernels below differ only in which bytes
// each thread counts.
__device__ void zero_block_bins(unsigned int *block_bins)
{
    for (unsigned int bin = threadIdx.x; bin < HISTOGRAM_BINS; bin += blockDim.x)
        block_bins[bin] = 0;
    __syncthreads();
}

__device__ void count_byte(unsigned int *block_bins, char byte)
{
    int position = byte - 'a';
    if (position >= 0 && position < 26)
        atomicAdd(&block_bins[position / LETTERS_PER_BIN], 1u);
}

__device__ void commit_block_bins(const unsigned int *block_bins, unsigned long long *histogram)
{
    __syncthreads();
    for (unsigned int bin = threadIdx.x; bin < HISTOGRAM_BINS; bin += blockDim.x) {
        unsigned int count = block_bins[bin];
        if (count > 0)
            atomicAdd(&histogram[bin], (unsigned long long)count);
    }
}

// ---------------------------------------------------------------------------------------
// Part A: contiguous partitioning (figure 9.12).
// ---------------------------------------------------------------------------------------

__global__ void histogram_contiguous_kernel(const char *text, uint64_t length,
                                            unsigned long long *histogram,
                                            unsigned int chars_per_thread)
{
    __shared__ unsigned int block_bins[HISTOGRAM_BINS];
    zero_block_bins(block_bins);

    uint64_t thread = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    uint64_t begin = thread * chars_per_thread;
    uint64_t end = min(begin + chars_per_thread, length);
    for (uint64_t i = begin; i < end; i++)
        count_byte(block_bins, text[i]);

    commit_block_bins(block_bins, histogram);
}

void lab6_histogram_contiguous(const char *d_text, uint64_t length,
                               unsigned long long *d_histogram, unsigned int chars_per_thread)
{
    CUDA_CHECK(cudaMemset(d_histogram, 0, HISTOGRAM_BINS * sizeof *d_histogram));
    if (length == 0)
        return;
    uint64_t chars_per_block = (uint64_t)threads_per_block * chars_per_thread;
    uint64_t blocks = (length + chars_per_block - 1) / chars_per_block;
    histogram_contiguous_kernel<<<(unsigned int)blocks, threads_per_block>>>(
        d_text, length, d_histogram, chars_per_thread);
    CUDA_CHECK_LAUNCH();
}

// ---------------------------------------------------------------------------------------
// Part B: interleaved partitioning (figure 9.14).
// ---------------------------------------------------------------------------------------

__global__ void histogram_interleaved_kernel(const char *text, uint64_t length,
                                             unsigned long long *histogram)
{
    __shared__ unsigned int block_bins[HISTOGRAM_BINS];
    zero_block_bins(block_bins);

    // Neighbouring threads read neighbouring bytes on every pass: each warp's loads are
    // coalesced into a few wide memory transactions.
    uint64_t grid_threads = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < length;
         i += grid_threads)
        count_byte(block_bins, text[i]);

    commit_block_bins(block_bins, histogram);
}

void lab6_histogram_interleaved(const char *d_text, uint64_t length,
                                unsigned long long *d_histogram, unsigned int blocks)
{
    CUDA_CHECK(cudaMemset(d_histogram, 0, HISTOGRAM_BINS * sizeof *d_histogram));
    if (length == 0)
        return;
    histogram_interleaved_kernel<<<blocks, threads_per_block>>>(d_text, length, d_histogram);
    CUDA_CHECK_LAUNCH();
}

// ---------------------------------------------------------------------------------------
// Part C: the choices, from the grader's sweep on an H200 (see the handout): 16 bytes a
// thread was fastest there, and the interleaved kernel stopped improving at 8 blocks per SM.
// ---------------------------------------------------------------------------------------

unsigned int lab6_chosen_chars_per_thread(void)
{
    return 16;
}

unsigned int lab6_chosen_blocks(int multiprocessors)
{
    return 8 * (unsigned int)multiprocessors; // 8 blocks of 256 threads fill a multiprocessor
}
