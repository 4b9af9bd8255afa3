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
    // This block's own copy of the bins: only its threads touch it, so they compete with each
    // other instead of with every thread of the grid.
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
    // work shared among the block's threads so that it stays right for any block size, fewer
    // threads than bins too (here a block has more threads than bins, so the grader cannot
    // tell; lab 9 grades that case). Every block commits, block 0 too: unlike the book's
    // version, the result has its own buffer. The grader
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
    // shared among the block's threads as in TODO 2, right for any block size. No thread may
    // count before every bin is zero.
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
    // BEGIN SOLUTION
    for (unsigned int bin = threadIdx.x; bin < HISTOGRAM_BINS; bin += blockDim.x)
        block_bins[bin] = 0;
    __syncthreads(); // every bin is zero before anyone counts

    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < length) {
        int position = text[i] - 'a';
        if (position >= 0 && position < 26)
            atomicAdd(&block_bins[position / LETTERS_PER_BIN], 1u);
    }
    __syncthreads(); // everyone has counted before the bins are stored

    // Every bin is stored, zeros too: the reduction adds every partial, and 0 is the identity
    // of the addition.
    for (unsigned int bin = threadIdx.x; bin < HISTOGRAM_BINS; bin += blockDim.x)
        partials[(uint64_t)bin * gridDim.x + blockIdx.x] = block_bins[bin];
    // END SOLUTION
    // SKELETON: (void)text;
    // SKELETON: (void)length;
    // SKELETON: (void)partials;
    // SKELETON: (void)block_bins;
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
    // BEGIN SOLUTION
    const unsigned long long *bin_values = values + (uint64_t)blockIdx.y * count;
    uint64_t first = (uint64_t)blockIdx.x * values_a_reduce_block + threadIdx.x;
    uint64_t second = first + reduce_threads;
    tree[threadIdx.x] = (first < count ? bin_values[first] : 0) +
                        (second < count ? bin_values[second] : 0);
    __syncthreads();

    // The active threads are the first `step` of the block: whole warps stay busy or idle
    // together until the last five steps, and a warp's threads read consecutive words, in 32
    // different banks.
    for (unsigned int step = reduce_threads / 2; step > 0; step /= 2) {
        if (threadIdx.x < step)
            tree[threadIdx.x] += tree[threadIdx.x + step];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        sums[(uint64_t)blockIdx.y * gridDim.x + blockIdx.x] = tree[0];
    // END SOLUTION
    // SKELETON: (void)values;
    // SKELETON: (void)count;
    // SKELETON: (void)sums;
    // SKELETON: (void)tree;
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
    // BEGIN SOLUTION
    // The sums of a step need a room of their own: a block that stored its sum where another
    // block has still to read would change what that block reads. The partials' room, free
    // once the first step has read it, takes the second step's sums, and so on.
    size_t partials_bytes = (size_t)blocks * HISTOGRAM_BINS * sizeof(unsigned long long);
    unsigned int first_sums = (blocks + values_a_reduce_block - 1) / values_a_reduce_block;
    size_t sums_bytes = (size_t)first_sums * HISTOGRAM_BINS * sizeof(unsigned long long);
    unsigned long long *d_values = NULL, *d_sums = NULL;
    CUDA_CHECK(cudaMallocAsync((void **)&d_values, partials_bytes, 0));
    CUDA_CHECK(cudaMallocAsync((void **)&d_sums, sums_bytes, 0));
    unsigned long long *rooms[2] = {d_values, d_sums};

    histogram_partials_kernel<<<blocks, threads_per_block>>>(d_text, length, d_values);
    CUDA_CHECK_LAUNCH();

    unsigned int count = blocks;
    int step = 0;
    do {
        unsigned int reduce_blocks = (count + values_a_reduce_block - 1) / values_a_reduce_block;
        unsigned long long *sums = reduce_blocks == 1 ? d_histogram : rooms[(step + 1) % 2];
        reduce_partials_kernel<<<dim3(reduce_blocks, HISTOGRAM_BINS), reduce_threads>>>(
            rooms[step % 2], count, sums);
        CUDA_CHECK_LAUNCH();
        count = reduce_blocks;
        step++;
    } while (count > 1);

    CUDA_CHECK(cudaFreeAsync(d_values, 0)); // freed once the last step is done
    CUDA_CHECK(cudaFreeAsync(d_sums, 0));
    // END SOLUTION
    // SKELETON: (void)blocks;
    // SKELETON: (void)d_text;
    // SKELETON: (void)values_a_reduce_block;
}
