// Lab 5: privatization. Read README.md in this folder first; the TODOs follow its tasks.
// Build and grade with:   make lab5 && ./grade lab5
#include "lab5.h"

#include "cuda_check.h"

static const unsigned int threads_per_block = 256;

static unsigned int blocks_for(uint64_t length)
{
    return (unsigned int)((length + threads_per_block - 1) / threads_per_block);
}

// ---------------------------------------------------------------------------------------
// Part A: private copies in global memory (figure 9.9).
// ---------------------------------------------------------------------------------------

__global__ void histogram_private_global_kernel(const char *text, uint64_t length,
                                                unsigned long long *histogram,
                                                unsigned int *private_copies)
{
    // This block's own copy of the bins: only its threads touch it, so they compete with each
    // other instead of with every thread of the grid.
    unsigned int *block_copy = private_copies + (size_t)blockIdx.x * HISTOGRAM_BINS;

    // TODO 1: as in lab 4, the thread of global index i counts byte i if it is a lowercase
    // letter, but into its block's copy, block_copy, not into histogram. The block's threads
    // share the copy: none may lose a count.

    // TODO 2: once every thread of the block has counted (no thread may read the copy
    // before), add the copy's non-zero counts into histogram, each bin once per block, the
    // work shared among the block's threads so that it stays right for any block size, fewer
    // threads than bins too (here a block has more threads than bins, so the grader cannot
    // tell; lab 9 grades that case). Every block commits, block 0 too: unlike the book's
    // version, the result has its own buffer. The grader
    // (private_global::*) runs lab 4's texts, the one past 4 GiB included, three times each on
    // bins filled with garbage, and names a missing head of the text (block 0's share), counts
    // added several times, and results that change from run to run.
    (void)text;
    (void)length;
    (void)histogram;
    (void)block_copy;
}

// Every call allocates its private copies. cudaMalloc maps fresh memory each time, at a cost
// that varies from run to run; the stream-ordered allocator (cudaMallocAsync) takes memory from
// the device's pool instead, and with this setting the pool keeps what is freed (by default it
// gives it back at every synchronisation), so the next call's allocation is only a lookup.
static void keep_freed_memory_in_the_pool(void)
{
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    cudaMemPool_t pool;
    CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, device));
    uint64_t keep_everything = UINT64_MAX;
    CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_everything));
}

void lab5_histogram_private_global(const char *d_text, uint64_t length,
                                   unsigned long long *d_histogram)
{
    CUDA_CHECK(cudaMemset(d_histogram, 0, HISTOGRAM_BINS * sizeof *d_histogram));
    if (length == 0)
        return;

    keep_freed_memory_in_the_pool();
    unsigned int blocks = blocks_for(length);
    // TODO 3: give the kernel one private copy of the bins per block (blocks x HISTOGRAM_BINS
    // unsigned ints), all zero, taken from the stream-ordered pool that
    // keep_freed_memory_in_the_pool() keeps between calls; run
    // histogram_private_global_kernel on `blocks` blocks of threads_per_block threads; check
    // the launch; and hand the copies back to the pool in stream order, once the kernel is
    // done. The grader calls this function many times in a row (three runs per text, then the
    // timed runs): a call must neither keep its copies nor see an earlier call's counts.
    (void)blocks;
    (void)d_text;
}

// ---------------------------------------------------------------------------------------
// Part B: private bins in shared memory (figure 9.10).
// ---------------------------------------------------------------------------------------

__global__ void histogram_private_shared_kernel(const char *text, uint64_t length,
                                                unsigned long long *histogram)
{
    __shared__ unsigned int block_bins[HISTOGRAM_BINS];

    // TODO 4: block_bins starts with whatever the last block there left: zero it, the work
    // shared among the block's threads as in TODO 2, right for any block size. No thread may
    // count before every bin is zero.

    // TODO 5: the thread of global index i counts byte i into block_bins, as in TODO 1: none
    // may lose a count.

    // TODO 6: once every thread of the block has counted, add each non-zero bin into
    // histogram, once per block, the work shared as in TODO 4. Every block commits: shared
    // memory disappears when the block ends. The grader (private_shared::*) runs the same texts
    // as for part A, and looks in the machine code for atomics on shared memory and atomic
    // adds on global memory (technique::*).
    (void)text;
    (void)length;
    (void)histogram;
    (void)block_bins;
}

void lab5_histogram_private_shared(const char *d_text, uint64_t length,
                                   unsigned long long *d_histogram)
{
    CUDA_CHECK(cudaMemset(d_histogram, 0, HISTOGRAM_BINS * sizeof *d_histogram));
    if (length == 0)
        return;
    // TODO 7: run histogram_private_shared_kernel with one thread per byte, in blocks of
    // threads_per_block threads, and check that the launch succeeded.
    (void)d_text;
}

// ---------------------------------------------------------------------------------------
// Part C: the merge as a reduction (partition and summarize).
// ---------------------------------------------------------------------------------------

// The partial histograms: bin b of block k is partials[b * blocks + k] (blocks: the counting
// kernel's gridDim.x), so that the partial counts of one bin lie side by side, in the order of
// the blocks.
__global__ void histogram_partials_kernel(const char *text, uint64_t length,
                                          unsigned long long *partials)
{
    __shared__ unsigned int block_bins[HISTOGRAM_BINS];

    // TODO 8: count this block's bytes into block_bins as part B does (zeroed first, every
    // byte counted once, none lost), then store each bin, whether 0 or not, as the block's
    // partial count of that bin in partials, where the comment above says, once the whole
    // block has counted. No atomic on global memory: every block writes words of its own. The
    // grader (reduced::*) checks the histogram that TODO 10 makes on lab 4's texts.
    (void)text;
    (void)length;
    (void)partials;
    (void)block_bins;
}

// A block of the reduction sums 2 x reduce_threads values of one bin: each thread adds two,
// then the tree halves the threads at every step. A power of two, so that every step halves.
static const unsigned int reduce_threads = 256;
static const unsigned int values_a_reduce_block = 2 * reduce_threads;

// One step of the reduction: values holds `count` values of each bin (bin b's from b * count
// on), and block k of row b of the grid (blockIdx.y is b) leaves in sums[b * gridDim.x + k] the
// sum of bin b's values from k * values_a_reduce_block on, values_a_reduce_block of them (fewer
// in the last block).
__global__ void reduce_partials_kernel(const unsigned long long *values, unsigned int count,
                                       unsigned long long *sums)
{
    __shared__ unsigned long long tree[reduce_threads];

    // TODO 9: the block's sum, as a tree: each thread first adds two of the block's values
    // (the identity, 0, for a value past count), then, step by step, half of the threads add
    // the value of a thread of the other half to their own, until one thread holds the sum,
    // which it stores. Every value is added exactly once, whatever count is (1 included). The
    // grader checks the histogram that TODO 10 makes, and that the kernels of part C have no
    // atomic on global memory (technique::*).
    (void)values;
    (void)count;
    (void)sums;
    (void)tree;
}

void lab5_histogram_reduced(const char *d_text, uint64_t length, unsigned long long *d_histogram)
{
    CUDA_CHECK(cudaMemset(d_histogram, 0, HISTOGRAM_BINS * sizeof *d_histogram));
    if (length == 0)
        return;

    keep_freed_memory_in_the_pool();
    unsigned int blocks = blocks_for(length);
    // TODO 10: the partial histograms of `blocks` blocks of threads_per_block threads (TODO 8),
    // in memory taken from the pool as in TODO 3, then reduced (TODO 9): each step turns
    // `count` values of every bin into one sum a reduction block, in a grid of as many blocks
    // as that takes times HISTOGRAM_BINS rows, until one value of each bin is left; the last
    // step writes d_histogram itself, each bin once. A text of one block needs one step too.
    // Check every launch, and hand the memory back to the pool, in stream order, once the last
    // step is done. The grader checks the histogram on lab 4's texts, the one past 4 GiB
    // included, and times this part against part B (speed::*).
    (void)blocks;
    (void)d_text;
    (void)values_a_reduce_block;
}
