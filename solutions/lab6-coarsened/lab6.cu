// SKELETON: // Lab 6: thread coarsening. Read README.md in this folder first; the TODOs follow its tasks.
// SKELETON: // Build and grade with:   make lab6 && ./grade lab6
// BEGIN SOLUTION
// Lab 6 reference solution: coarsened histograms, contiguous and interleaved. The skeleton,
// labs/lab6-coarsened/lab6.cu, is made from this file by grader/make_skeleton.py, which says
// how the markers work.
// END SOLUTION
#include "lab6.h"

#include "cuda_check.h"

static const unsigned int threads_per_block = 256;

// The steps every privatized kernel shares; the kernels below differ only in which bytes each
// thread counts. TODO (from lab 5, your TODOs 4 to 6 there): copy your lab 5 code into these
// three. zero_block_bins: every bin of block_bins is 0 before any thread of the block counts
// (the block's threads share the work). count_byte: a lowercase letter adds 1 to its bin of
// block_bins; any other byte adds nothing. commit_block_bins: once every thread of the block
// has counted, each non-zero bin is added into histogram once per block. The grader checks
// them through every histogram of this lab.
__device__ void zero_block_bins(unsigned int *block_bins)
{
    // BEGIN SOLUTION
    for (unsigned int bin = threadIdx.x; bin < HISTOGRAM_BINS; bin += blockDim.x)
        block_bins[bin] = 0;
    __syncthreads();
    // END SOLUTION
    // SKELETON: (void)block_bins;
}

__device__ void count_byte(unsigned int *block_bins, char byte)
{
    // BEGIN SOLUTION
    int position = byte - 'a';
    if (position >= 0 && position < 26)
        atomicAdd(&block_bins[position / LETTERS_PER_BIN], 1u);
    // END SOLUTION
    // SKELETON: (void)block_bins;
    // SKELETON: (void)byte;
}

__device__ void commit_block_bins(const unsigned int *block_bins, unsigned long long *histogram)
{
    // BEGIN SOLUTION
    __syncthreads();
    for (unsigned int bin = threadIdx.x; bin < HISTOGRAM_BINS; bin += blockDim.x) {
        unsigned int count = block_bins[bin];
        if (count > 0)
            atomicAdd(&histogram[bin], (unsigned long long)count);
    }
    // END SOLUTION
    // SKELETON: (void)block_bins;
    // SKELETON: (void)histogram;
}

// ---------------------------------------------------------------------------------------
// Part A: contiguous partitioning (figure 9.12), on a grid sized to the text.
// ---------------------------------------------------------------------------------------

__global__ void histogram_contiguous_kernel(const char *text, uint64_t length,
                                            unsigned long long *histogram,
                                            unsigned int chars_per_thread)
{
    __shared__ unsigned int block_bins[HISTOGRAM_BINS];
    zero_block_bins(block_bins);

    // TODO 1: this thread counts one stretch of chars_per_thread consecutive bytes into
    // block_bins: the grid's threads, in order, take the text's stretches in order, so that
    // together they cover every byte exactly once. A stretch that runs past the end of the
    // text stops at length: nothing past the text is read. Positions past 4 GiB must work.
    // The grader checks the histogram with 7 bytes a thread (stretches that end mid-block) and
    // with your part D choice, on every input of lab 4 and a text past 4 GiB, with guard
    // letters after the text that must not be counted.
    // BEGIN SOLUTION
    uint64_t thread = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    uint64_t begin = thread * chars_per_thread;
    uint64_t end = min(begin + chars_per_thread, length);
    for (uint64_t i = begin; i < end; i++)
        count_byte(block_bins, text[i]);
    // END SOLUTION
    // SKELETON: (void)text;
    // SKELETON: (void)length;
    // SKELETON: (void)chars_per_thread;

    commit_block_bins(block_bins, histogram);
}

void lab6_histogram_contiguous(const char *d_text, uint64_t length,
                               unsigned long long *d_histogram, unsigned int chars_per_thread)
{
    CUDA_CHECK(cudaMemset(d_histogram, 0, HISTOGRAM_BINS * sizeof *d_histogram));
    if (length == 0)
        return;
    // TODO 2: launch the kernel above with threads_per_block threads a block and just enough
    // blocks for its threads' stretches to cover the whole text, the last block's too, when
    // length is not a multiple of a block's share; then check the launch for errors. The
    // grid's arithmetic must not overflow for texts past 4 GiB. The grader checks the
    // histogram as for TODO 1: a text whose end is never counted fails as "tail-missing"; and
    // that each call made this one launch, of that grid (or one block more), and no other.
    // BEGIN SOLUTION
    uint64_t chars_per_block = (uint64_t)threads_per_block * chars_per_thread;
    uint64_t blocks = (length + chars_per_block - 1) / chars_per_block;
    histogram_contiguous_kernel<<<(unsigned int)blocks, threads_per_block>>>(
        d_text, length, d_histogram, chars_per_thread);
    CUDA_CHECK_LAUNCH();
    // END SOLUTION
    // SKELETON: (void)d_text;
    // SKELETON: (void)chars_per_thread;
}

// ---------------------------------------------------------------------------------------
// Part B: interleaved partitioning (figure 9.14; the slides' Strategy II), on a fixed grid.
// ---------------------------------------------------------------------------------------

__global__ void histogram_interleaved_kernel(const char *text, uint64_t length,
                                             unsigned long long *histogram)
{
    __shared__ unsigned int block_bins[HISTOGRAM_BINS];
    zero_block_bins(block_bins);

    // TODO 3: the grid's threads, whatever their number, count the whole text together, each
    // byte exactly once, into block_bins: on every pass the grid's threads take as many
    // consecutive bytes as there are threads, neighbour next to neighbour (coalesced), then
    // all move on together until the text ends. Positions past 4 GiB must work. The grader
    // checks the histogram with 3 blocks (few threads, long loops) and with your part D
    // choice, on every input of lab 4 and a text past 4 GiB.
    // BEGIN SOLUTION
    // Neighbouring threads read neighbouring bytes on every pass: each warp's loads are
    // coalesced into a few wide memory transactions.
    uint64_t grid_threads = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < length;
         i += grid_threads)
        count_byte(block_bins, text[i]);
    // END SOLUTION
    // SKELETON: (void)text;
    // SKELETON: (void)length;

    commit_block_bins(block_bins, histogram);
}

void lab6_histogram_interleaved(const char *d_text, uint64_t length,
                                unsigned long long *d_histogram, unsigned int blocks)
{
    CUDA_CHECK(cudaMemset(d_histogram, 0, HISTOGRAM_BINS * sizeof *d_histogram));
    if (length == 0)
        return;
    // TODO 4: launch the kernel above with exactly `blocks` blocks of threads_per_block
    // threads (the caller chooses the grid; the kernel adapts to it), then check the launch
    // for errors. The grader checks that each call made this one launch, and no other.
    // BEGIN SOLUTION
    histogram_interleaved_kernel<<<blocks, threads_per_block>>>(d_text, length, d_histogram);
    CUDA_CHECK_LAUNCH();
    // END SOLUTION
    // SKELETON: (void)d_text;
    // SKELETON: (void)blocks;
}

// ---------------------------------------------------------------------------------------
// Part C: contiguous partitioning on a fixed grid (the slides' Strategy I).
// ---------------------------------------------------------------------------------------

__global__ void histogram_sections_kernel(const char *text, uint64_t length,
                                          unsigned long long *histogram)
{
    __shared__ unsigned int block_bins[HISTOGRAM_BINS];
    zero_block_bins(block_bins);

    // TODO 5: whatever the grid, its threads cut the text into as many sections of
    // consecutive bytes as there are threads, in the threads' order, each section the length
    // divided by the number of threads, rounded up, so that together they reach the end (the
    // last sections shorter, or empty when there are more threads than bytes); this thread
    // counts its own section into block_bins. Positions past 4 GiB must work. The grader
    // checks the histogram with 3 blocks (long sections) and with your part D choice on every
    // input of lab 4, and with 65536 blocks on a text past 4 GiB, with guard letters after the
    // text.
    // BEGIN SOLUTION
    uint64_t threads = (uint64_t)gridDim.x * blockDim.x;
    uint64_t section = (length + threads - 1) / threads; // the slides' (size - 1) / threads + 1
    uint64_t begin = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) * section;
    uint64_t end = min(begin + section, length);
    for (uint64_t i = begin; i < end; i++)
        count_byte(block_bins, text[i]);
    // END SOLUTION
    // SKELETON: (void)text;
    // SKELETON: (void)length;

    commit_block_bins(block_bins, histogram);
}

void lab6_histogram_sections(const char *d_text, uint64_t length,
                             unsigned long long *d_histogram, unsigned int blocks)
{
    CUDA_CHECK(cudaMemset(d_histogram, 0, HISTOGRAM_BINS * sizeof *d_histogram));
    if (length == 0)
        return;
    // TODO 6: launch the kernel above with exactly `blocks` blocks of threads_per_block
    // threads, then check the launch for errors. The grader checks that each call made this
    // one launch, and no other.
    // BEGIN SOLUTION
    histogram_sections_kernel<<<blocks, threads_per_block>>>(d_text, length, d_histogram);
    CUDA_CHECK_LAUNCH();
    // END SOLUTION
    // SKELETON: (void)d_text;
    // SKELETON: (void)blocks;
}

// ---------------------------------------------------------------------------------------
// SKELETON: // Part D: your choices. Run ./grade lab6 and read its sweep table before you choose.
// BEGIN SOLUTION
// Part D: the choices, from the grader's sweep on an H200 (see the handout): 16 bytes a
// thread was fastest there, and the interleaved kernel stopped improving at 8 blocks per SM.
// END SOLUTION
// ---------------------------------------------------------------------------------------

unsigned int lab6_chosen_chars_per_thread(void)
{
    // TODO 7: the chars_per_thread that was fastest on YOUR GPU, read from the sweep table
    // that ./grade lab6 prints once parts A to C pass. The grader checks only that it is at
    // least 1, and times part A with it; your answer to the handout's question 7 shows the
    // sweep it came from (a value copied from the handout's GPU is not a measurement).
    // BEGIN SOLUTION
    return 16;
    // END SOLUTION
    // SKELETON: return 1;
}

unsigned int lab6_chosen_blocks(int multiprocessors)
{
    // TODO 8: the grid size that was fastest on YOUR GPU in the same sweep, as a number of
    // blocks per multiprocessor times multiprocessors (so that it follows the GPU it runs
    // on). The grader checks that it is a launchable grid (1 to 2^31 - 1 blocks) for 1 to 1024
    // multiprocessors, and times parts B and C with it.
    // BEGIN SOLUTION
    return 8 * (unsigned int)multiprocessors; // 8 blocks of 256 threads fill a multiprocessor
    // END SOLUTION
    // SKELETON: return (unsigned int)multiprocessors;
}
