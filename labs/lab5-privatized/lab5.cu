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
    // This block's own copy of the bins: HISTOGRAM_BINS counters of private_copies.
    unsigned int *block_copy = private_copies + (size_t)blockIdx.x * HISTOGRAM_BINS;

    // TODO 1: as in lab 4, the thread of global index i counts byte i if it is a lowercase
    // letter, but into its block's copy, block_copy, not into histogram. The block's threads
    // share the copy: none may lose a count.

    // TODO 2: once every thread of the block has counted (no thread may read the copy
    // before), add the copy's non-zero counts into histogram, each bin once per block, the
    // work shared among the block's threads whatever their number. Every block commits, block
    // 0 too: unlike the book's version, the result has its own buffer. The grader
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
    // shared among the block's threads whatever their number. No thread may count before
    // every bin is zero.

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
