// SKELETON: // Lab 5: privatization. Read README.md in this folder first; the TODOs follow its tasks.
// SKELETON: // Build and grade with:   make lab5 && ./grade lab5
// BEGIN SOLUTION
// Lab 5 reference solution: privatized histograms, in global and in shared memory. The
// skeleton, labs/lab5-privatized/lab5.cu, is made from this file by grader/make_skeleton.py,
// which says how the markers work.
// END SOLUTION
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
    // SKELETON: // This block's own copy of the bins: HISTOGRAM_BINS counters of private_copies.
    // BEGIN SOLUTION
    // Only this block's threads touch its copy, so they compete with 255 others instead of
    // with every thread of the grid.
    // END SOLUTION
    unsigned int *block_copy = private_copies + (size_t)blockIdx.x * HISTOGRAM_BINS;

    // TODO 1: as in lab 4, the thread of global index i counts byte i if it is a lowercase
    // letter, but into its block's copy, block_copy, not into histogram. The block's threads
    // share the copy: none may lose a count.
    // BEGIN SOLUTION
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < length) {
        int position = text[i] - 'a';
        if (position >= 0 && position < 26)
            atomicAdd(&block_copy[position / LETTERS_PER_BIN], 1u);
    }
    // END SOLUTION

    // TODO 2: once every thread of the block has counted (no thread may read the copy
    // before), add the copy's non-zero counts into histogram, each bin once per block, the
    // work shared among the block's threads whatever their number. Every block commits, block
    // 0 too: unlike the book's version, the result has its own buffer. The grader
    // (private_global::*) runs lab 4's texts, the one past 4 GiB included, three times each on
    // bins filled with garbage, and names a missing head of the text (block 0's share), counts
    // added several times, and results that change from run to run.
    // BEGIN SOLUTION
    __syncthreads(); // the whole block has counted before its copy is read

    // Unlike the book, whose block 0 copy doubles as the result (hence its blockIdx.x > 0
    // guard), every block here commits its copy: the result lives in its own buffer.
    for (unsigned int bin = threadIdx.x; bin < HISTOGRAM_BINS; bin += blockDim.x) {
        unsigned int count = block_copy[bin];
        if (count > 0)
            atomicAdd(&histogram[bin], (unsigned long long)count);
    }
    // END SOLUTION
    // SKELETON: (void)text;
    // SKELETON: (void)length;
    // SKELETON: (void)histogram;
    // SKELETON: (void)block_copy;
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
    // BEGIN SOLUTION
    size_t copies_bytes = (size_t)blocks * HISTOGRAM_BINS * sizeof(unsigned int);
    unsigned int *d_private_copies = NULL;
    CUDA_CHECK(cudaMallocAsync((void **)&d_private_copies, copies_bytes, 0));
    CUDA_CHECK(cudaMemsetAsync(d_private_copies, 0, copies_bytes, 0));

    histogram_private_global_kernel<<<blocks, threads_per_block>>>(d_text, length, d_histogram,
                                                                  d_private_copies);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaFreeAsync(d_private_copies, 0)); // freed once the kernel is done
    // END SOLUTION
    // SKELETON: (void)blocks;
    // SKELETON: (void)d_text;
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
    // BEGIN SOLUTION
    for (unsigned int bin = threadIdx.x; bin < HISTOGRAM_BINS; bin += blockDim.x)
        block_bins[bin] = 0;
    __syncthreads(); // every bin is zero before anyone counts
    // END SOLUTION

    // TODO 5: the thread of global index i counts byte i into block_bins, as in TODO 1: none
    // may lose a count.
    // BEGIN SOLUTION
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < length) {
        int position = text[i] - 'a';
        if (position >= 0 && position < 26)
            atomicAdd(&block_bins[position / LETTERS_PER_BIN], 1u);
    }
    __syncthreads(); // everyone has counted before the bins are committed
    // END SOLUTION

    // TODO 6: once every thread of the block has counted, add each non-zero bin into
    // histogram, once per block, the work shared as in TODO 4. Every block commits: shared
    // memory disappears when the block ends. The grader (private_shared::*) runs the same texts
    // as for part A, and looks in the machine code for atomics on shared memory and atomic
    // adds on global memory (technique::*).
    // BEGIN SOLUTION
    for (unsigned int bin = threadIdx.x; bin < HISTOGRAM_BINS; bin += blockDim.x) {
        unsigned int count = block_bins[bin];
        if (count > 0)
            atomicAdd(&histogram[bin], (unsigned long long)count);
    }
    // END SOLUTION
    // SKELETON: (void)text;
    // SKELETON: (void)length;
    // SKELETON: (void)histogram;
    // SKELETON: (void)block_bins;
}

void lab5_histogram_private_shared(const char *d_text, uint64_t length,
                                   unsigned long long *d_histogram)
{
    CUDA_CHECK(cudaMemset(d_histogram, 0, HISTOGRAM_BINS * sizeof *d_histogram));
    if (length == 0)
        return;
    // TODO 7: run histogram_private_shared_kernel with one thread per byte, in blocks of
    // threads_per_block threads, and check that the launch succeeded.
    // BEGIN SOLUTION
    histogram_private_shared_kernel<<<blocks_for(length), threads_per_block>>>(d_text, length,
                                                                              d_histogram);
    CUDA_CHECK_LAUNCH();
    // END SOLUTION
    // SKELETON: (void)d_text;
}
