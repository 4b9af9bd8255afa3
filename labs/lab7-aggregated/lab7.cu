// Lab 7: aggregation. Read README.md in this folder first; the TODOs follow its tasks.
// Build and grade with:   make lab7 && ./grade lab7
#include "lab7.h"

#include "cuda_check.h"

static const unsigned int threads_per_block = 256;

// The shared-memory steps of every privatized kernel. TODO (from lab 5, your TODOs 4 and 6
// there): copy your lab 5 code into these two. zero_block_bins: every bin of block_bins is 0
// before any thread of the block counts (the block's threads share the work).
// commit_block_bins: once every thread of the block has counted, each non-zero bin is added
// into histogram once per block. The grader checks them through every histogram of part A.
__device__ void zero_block_bins(unsigned int *block_bins)
{
    (void)block_bins;
}

__device__ void commit_block_bins(const unsigned int *block_bins, unsigned long long *histogram)
{
    (void)block_bins;
    (void)histogram;
}

// The bin of a byte, or -1 for anything that is not a lowercase letter.
__device__ int bin_of(char byte)
{
    int position = byte - 'a';
    return position >= 0 && position < 26 ? position / LETTERS_PER_BIN : -1;
}

// ---------------------------------------------------------------------------------------
// Part A: aggregation on top of shared-memory privatization (figure 9.15).
// ---------------------------------------------------------------------------------------

__global__ void histogram_aggregated_kernel(const char *text, uint64_t length,
                                            unsigned long long *histogram)
{
    __shared__ unsigned int block_bins[HISTOGRAM_BINS];
    zero_block_bins(block_bins);

    // TODO 1: count the text as lab 6's interleaved kernel does (the grid's threads sweep it
    // together, each byte counted once, positions past 4 GiB included), but aggregated
    // (figure 9.15): consecutive letters of one bin that this thread meets are added to
    // block_bins as one run, with one atomic for the whole run instead of one per letter.
    // Bytes that are not lowercase letters are counted nowhere (let them neither end nor
    // extend a run: runs stay long). Every run is added exactly once, the last one too. The
    // grader checks the histogram on every input of lab 4 (the runs among them) and a text
    // past 4 GiB, and that the machine code adds whole runs to shared memory, not only
    // increments of 1.
    (void)text;
    (void)length;

    commit_block_bins(block_bins, histogram);
}

void lab7_histogram_aggregated(const char *d_text, uint64_t length,
                               unsigned long long *d_histogram)
{
    CUDA_CHECK(cudaMemset(d_histogram, 0, HISTOGRAM_BINS * sizeof *d_histogram));
    if (length == 0)
        return;
    int device = 0, multiprocessors = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
    histogram_aggregated_kernel<<<8 * multiprocessors, threads_per_block>>>(d_text, length,
                                                                           d_histogram);
    CUDA_CHECK_LAUNCH();
}

// ---------------------------------------------------------------------------------------
// Part B: aggregation where atomics are expensive: straight to global memory.
// ---------------------------------------------------------------------------------------

__global__ void histogram_global_contiguous_kernel(const char *text, uint64_t length,
                                                   unsigned long long *histogram)
{
    uint64_t thread = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    uint64_t begin = thread * LAB7_GLOBAL_CHARS_PER_THREAD;
    uint64_t end = min(begin + LAB7_GLOBAL_CHARS_PER_THREAD, length);
    for (uint64_t i = begin; i < end; i++) {
        int bin = bin_of(text[i]);
        if (bin >= 0)
            atomicAdd(&histogram[bin], 1ULL);
    }
}

__global__ void histogram_global_aggregated_kernel(const char *text, uint64_t length,
                                                   unsigned long long *histogram)
{
    uint64_t thread = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    uint64_t begin = thread * LAB7_GLOBAL_CHARS_PER_THREAD;
    uint64_t end = min(begin + LAB7_GLOBAL_CHARS_PER_THREAD, length);

    // TODO 2: count this thread's bytes [begin, end) as histogram_global_contiguous_kernel
    // above does, with no private bins, but aggregated as in TODO 1: each run of letters of
    // one bin is added straight to its 64-bit bin of histogram with one atomic, the last run
    // too. The grader checks the histogram on every input of lab 4 and a text past 4 GiB, and
    // that the machine code has a 64-bit atomic add to global memory.
    (void)text;
    (void)histogram;
    (void)end;
}

static unsigned int global_blocks_for(uint64_t length)
{
    uint64_t chars_per_block = (uint64_t)threads_per_block * LAB7_GLOBAL_CHARS_PER_THREAD;
    return (unsigned int)((length + chars_per_block - 1) / chars_per_block);
}

void lab7_histogram_global_contiguous(const char *d_text, uint64_t length,
                                      unsigned long long *d_histogram)
{
    CUDA_CHECK(cudaMemset(d_histogram, 0, HISTOGRAM_BINS * sizeof *d_histogram));
    if (length == 0)
        return;
    histogram_global_contiguous_kernel<<<global_blocks_for(length), threads_per_block>>>(
        d_text, length, d_histogram);
    CUDA_CHECK_LAUNCH();
}

void lab7_histogram_global_aggregated(const char *d_text, uint64_t length,
                                      unsigned long long *d_histogram)
{
    CUDA_CHECK(cudaMemset(d_histogram, 0, HISTOGRAM_BINS * sizeof *d_histogram));
    if (length == 0)
        return;
    histogram_global_aggregated_kernel<<<global_blocks_for(length), threads_per_block>>>(
        d_text, length, d_histogram);
    CUDA_CHECK_LAUNCH();
}
