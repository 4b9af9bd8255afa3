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

    // TODO 1: as in lab 4, thread i counts byte i, but into block_copy (atomicAdd on an
    // unsigned int: add 1u).

    // TODO 2: wait until the whole block has counted (__syncthreads()), then let the block's
    // threads share the bins (bin = threadIdx.x, threadIdx.x + blockDim.x, ...) and add each
    // non-zero count of block_copy into histogram. Every block commits, block 0 too: unlike
    // the book's version, the result has its own buffer.
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
    // TODO 3: allocate room for one copy of the bins per block (blocks * HISTOGRAM_BINS
    // unsigned ints) with cudaMallocAsync(&pointer, bytes, 0), zero it with
    // cudaMemsetAsync(pointer, 0, bytes, 0), launch histogram_private_global_kernel with
    // `blocks` blocks of threads_per_block threads, check the launch, and free the copies with
    // cudaFreeAsync(pointer, 0) (in stream order: after the kernel is done).
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

    // TODO 4: zero block_bins (the block's threads share the bins, as in TODO 2), and wait
    // until every bin is zero before anyone counts.

    // TODO 5: thread i counts byte i into block_bins with atomicAdd.

    // TODO 6: wait until everyone has counted, then add each non-zero bin into histogram.
    // Every block commits: shared memory disappears when the block ends.
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
    // TODO 7: launch histogram_private_shared_kernel with blocks_for(length) blocks of
    // threads_per_block threads and check the launch.
    (void)d_text;
}
