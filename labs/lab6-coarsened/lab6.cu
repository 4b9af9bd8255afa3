// Lab 6: thread coarsening. Read README.md in this folder first; the TODOs follow its tasks.
// Build and grade with:   make lab6 && ./grade lab6
#include "lab6.h"

#include "cuda_check.h"

static const unsigned int threads_per_block = 256;

// The steps every privatized kernel shares (you wrote them in lab 5); the two kernels below
// differ only in which bytes each thread counts.
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

    // TODO 1: this thread (number blockIdx.x * blockDim.x + threadIdx.x over the grid, as a
    // uint64_t) counts the chars_per_thread bytes starting at thread * chars_per_thread, with
    // count_byte(block_bins, ...). The last thread's range stops at length.
    (void)text;
    (void)length;
    (void)chars_per_thread;

    commit_block_bins(block_bins, histogram);
}

void lab6_histogram_contiguous(const char *d_text, uint64_t length,
                               unsigned long long *d_histogram, unsigned int chars_per_thread)
{
    CUDA_CHECK(cudaMemset(d_histogram, 0, HISTOGRAM_BINS * sizeof *d_histogram));
    if (length == 0)
        return;
    // TODO 2: a block covers threads_per_block * chars_per_thread bytes: launch enough blocks
    // to cover the text (round up; compute in uint64_t), then check the launch.
    (void)d_text;
    (void)chars_per_thread;
}

// ---------------------------------------------------------------------------------------
// Part B: interleaved partitioning (figure 9.14).
// ---------------------------------------------------------------------------------------

__global__ void histogram_interleaved_kernel(const char *text, uint64_t length,
                                             unsigned long long *histogram)
{
    __shared__ unsigned int block_bins[HISTOGRAM_BINS];
    zero_block_bins(block_bins);

    // TODO 3: a grid-stride loop: start at this thread's number over the grid and step by the
    // number of threads in the grid (gridDim.x * blockDim.x) until the end of the text,
    // counting each byte. Use uint64_t for the index and the step.
    (void)text;
    (void)length;

    commit_block_bins(block_bins, histogram);
}

void lab6_histogram_interleaved(const char *d_text, uint64_t length,
                                unsigned long long *d_histogram, unsigned int blocks)
{
    CUDA_CHECK(cudaMemset(d_histogram, 0, HISTOGRAM_BINS * sizeof *d_histogram));
    if (length == 0)
        return;
    // TODO 4: launch histogram_interleaved_kernel with exactly `blocks` blocks and check it.
    (void)d_text;
    (void)blocks;
}

// ---------------------------------------------------------------------------------------
// Part C: your choices. Run ./grade lab6 and read its sweep table before you choose.
// ---------------------------------------------------------------------------------------

unsigned int lab6_chosen_chars_per_thread(void)
{
    return 1; // TODO 5: the chars_per_thread you found fastest
}

unsigned int lab6_chosen_blocks(int multiprocessors)
{
    return (unsigned int)multiprocessors; // TODO 6: the grid size you found fastest
}
