// Lab 5 reference solution: privatized histograms, in global and in shared memory.
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
    // Only this block's threads touch its copy, so they compete with 255 others instead of
    // with every thread of the grid.
    unsigned int *block_copy = private_copies + (size_t)blockIdx.x * HISTOGRAM_BINS;

    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < length) {
        int position = text[i] - 'a';
        if (position >= 0 && position < 26)
            atomicAdd(&block_copy[position / LETTERS_PER_BIN], 1u);
    }
    __syncthreads(); // the whole block has counted before its copy is read

    // Unlike the book, whose block 0 copy doubles as the result (hence its blockIdx.x > 0
    // guard), every block here commits its copy: the result lives in its own buffer.
    for (unsigned int bin = threadIdx.x; bin < HISTOGRAM_BINS; bin += blockDim.x) {
        unsigned int count = block_copy[bin];
        if (count > 0)
            atomicAdd(&histogram[bin], (unsigned long long)count);
    }
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
    size_t copies_bytes = (size_t)blocks * HISTOGRAM_BINS * sizeof(unsigned int);
    unsigned int *d_private_copies = NULL;
    CUDA_CHECK(cudaMallocAsync((void **)&d_private_copies, copies_bytes, 0));
    CUDA_CHECK(cudaMemsetAsync(d_private_copies, 0, copies_bytes, 0));

    histogram_private_global_kernel<<<blocks, threads_per_block>>>(d_text, length, d_histogram,
                                                                  d_private_copies);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaFreeAsync(d_private_copies, 0)); // freed once the kernel is done
}

// ---------------------------------------------------------------------------------------
// Part B: private bins in shared memory (figure 9.10).
// ---------------------------------------------------------------------------------------

__global__ void histogram_private_shared_kernel(const char *text, uint64_t length,
                                                unsigned long long *histogram)
{
    __shared__ unsigned int block_bins[HISTOGRAM_BINS];
    for (unsigned int bin = threadIdx.x; bin < HISTOGRAM_BINS; bin += blockDim.x)
        block_bins[bin] = 0;
    __syncthreads(); // every bin is zero before anyone counts

    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < length) {
        int position = text[i] - 'a';
        if (position >= 0 && position < 26)
            atomicAdd(&block_bins[position / LETTERS_PER_BIN], 1u);
    }
    __syncthreads(); // everyone has counted before the bins are committed

    for (unsigned int bin = threadIdx.x; bin < HISTOGRAM_BINS; bin += blockDim.x) {
        unsigned int count = block_bins[bin];
        if (count > 0)
            atomicAdd(&histogram[bin], (unsigned long long)count);
    }
}

void lab5_histogram_private_shared(const char *d_text, uint64_t length,
                                   unsigned long long *d_histogram)
{
    CUDA_CHECK(cudaMemset(d_histogram, 0, HISTOGRAM_BINS * sizeof *d_histogram));
    if (length == 0)
        return;
    histogram_private_shared_kernel<<<blocks_for(length), threads_per_block>>>(d_text, length,
                                                                              d_histogram);
    CUDA_CHECK_LAUNCH();
}
