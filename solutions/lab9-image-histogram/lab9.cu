// Lab 9 reference solution: the image histogram of the lecture slides (sixteen bins of 32-bit
// pixels), then 256 bins of 8-bit pixels.
#include "lab9.h"

#include "cuda_check.h"

// A grid of at most this many blocks covers any image: the kernels loop over the pixels
// (grid-stride), so an image larger than the grid's threads needs no larger grid. It also
// bounds what one block counts, below 2^32 for any image up to 2^52 pixels: a block's 32-bit
// counters in shared memory cannot overflow.
static const unsigned int max_blocks = 1u << 20;

static unsigned int blocks_for(uint64_t pixels, unsigned int threads_per_block)
{
    uint64_t blocks = (pixels + threads_per_block - 1) / threads_per_block;
    return blocks < max_blocks ? (unsigned int)blocks : max_blocks;
}

// ---------------------------------------------------------------------------------------
// Part A: sixteen bins, the slides' image histogram.
// ---------------------------------------------------------------------------------------

void lab9_histogram16_host(const uint32_t *image, uint64_t pixels,
                           unsigned long long histogram[SMALL_HISTOGRAM_BINS])
{
    for (int bin = 0; bin < SMALL_HISTOGRAM_BINS; bin++)
        histogram[bin] = 0;
    for (uint64_t i = 0; i < pixels; i++)
        if (image[i] < SMALL_HISTOGRAM_BINS) // other values are markers, counted in no bin
            histogram[image[i]]++;
}

__global__ void histogram16_global_kernel(const uint32_t *image, uint64_t pixels,
                                          unsigned long long *histogram)
{
    const uint64_t threads = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < pixels; i += threads) {
        uint32_t value = image[i];
        if (value < SMALL_HISTOGRAM_BINS)
            atomicAdd(&histogram[value], 1ull);
    }
}

void lab9_histogram16_global(const uint32_t *d_image, uint64_t pixels,
                             unsigned long long *d_histogram, unsigned int threads_per_block)
{
    CUDA_CHECK(cudaMemset(d_histogram, 0, SMALL_HISTOGRAM_BINS * sizeof *d_histogram));
    if (pixels == 0)
        return;
    histogram16_global_kernel<<<blocks_for(pixels, threads_per_block), threads_per_block>>>(
        d_image, pixels, d_histogram);
    CUDA_CHECK_LAUNCH();
}

__global__ void histogram16_shared_kernel(const uint32_t *image, uint64_t pixels,
                                          unsigned long long *histogram)
{
    __shared__ unsigned int block_bins[SMALL_HISTOGRAM_BINS];
    // The bins are dealt out to the threads in steps of blockDim.x, not one thread a bin as in
    // the slides: a block of fewer than 16 threads must zero and commit them all too.
    for (unsigned int bin = threadIdx.x; bin < SMALL_HISTOGRAM_BINS; bin += blockDim.x)
        block_bins[bin] = 0;
    __syncthreads(); // every bin is zero before anyone counts

    const uint64_t threads = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < pixels; i += threads) {
        uint32_t value = image[i];
        if (value < SMALL_HISTOGRAM_BINS)
            atomicAdd(&block_bins[value], 1u);
    }
    __syncthreads(); // everyone has counted before the bins are committed

    for (unsigned int bin = threadIdx.x; bin < SMALL_HISTOGRAM_BINS; bin += blockDim.x) {
        unsigned int count = block_bins[bin];
        if (count > 0)
            atomicAdd(&histogram[bin], (unsigned long long)count);
    }
}

void lab9_histogram16_shared(const uint32_t *d_image, uint64_t pixels,
                             unsigned long long *d_histogram, unsigned int threads_per_block)
{
    CUDA_CHECK(cudaMemset(d_histogram, 0, SMALL_HISTOGRAM_BINS * sizeof *d_histogram));
    if (pixels == 0)
        return;
    histogram16_shared_kernel<<<blocks_for(pixels, threads_per_block), threads_per_block>>>(
        d_image, pixels, d_histogram);
    CUDA_CHECK_LAUNCH();
}

// ---------------------------------------------------------------------------------------
// Part B: 256 bins of 8-bit pixels.
// ---------------------------------------------------------------------------------------

static const unsigned int threads_per_block = 256;
// Enough blocks to fill the GPU, few enough that each block counts many pixels for its 256
// commits: a block's setup and commit are paid once per block, not once per pixel.
static const unsigned int blocks_per_multiprocessor = 4;
// At most this many pixels a block (2^30): its 32-bit counters in shared memory cannot
// overflow, whatever the image's size.
static const uint64_t max_pixels_per_block = 1ull << 30;

static unsigned int coarsened_blocks_for(uint64_t pixels)
{
    int device = 0, multiprocessors = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
    uint64_t blocks = blocks_per_multiprocessor * (uint64_t)multiprocessors;
    uint64_t needed = (pixels + max_pixels_per_block - 1) / max_pixels_per_block;
    return (unsigned int)(blocks > needed ? blocks : needed);
}

__device__ void zero_block_bins(unsigned int *block_bins)
{
    for (unsigned int bin = threadIdx.x; bin < BYTE_HISTOGRAM_BINS; bin += blockDim.x)
        block_bins[bin] = 0;
    __syncthreads(); // every bin is zero before anyone counts
}

__device__ void commit_block_bins(const unsigned int *block_bins, unsigned long long *histogram)
{
    __syncthreads(); // everyone has counted before the bins are committed
    for (unsigned int bin = threadIdx.x; bin < BYTE_HISTOGRAM_BINS; bin += blockDim.x) {
        unsigned int count = block_bins[bin];
        if (count > 0)
            atomicAdd(&histogram[bin], (unsigned long long)count);
    }
}

__global__ void histogram256_private_kernel(const uint8_t *pixels, uint64_t count,
                                            unsigned long long *histogram)
{
    __shared__ unsigned int block_bins[BYTE_HISTOGRAM_BINS];
    zero_block_bins(block_bins);
    const uint64_t threads = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += threads)
        atomicAdd(&block_bins[pixels[i]], 1u);
    commit_block_bins(block_bins, histogram);
}

void lab9_histogram256_private(const uint8_t *d_pixels, uint64_t pixels,
                               unsigned long long *d_histogram)
{
    CUDA_CHECK(cudaMemset(d_histogram, 0, BYTE_HISTOGRAM_BINS * sizeof *d_histogram));
    if (pixels == 0)
        return;
    histogram256_private_kernel<<<coarsened_blocks_for(pixels), threads_per_block>>>(
        d_pixels, pixels, d_histogram);
    CUDA_CHECK_LAUNCH();
}

/* lead replaces: the fast kernel */
// For now the private kernel reading 16 bytes a load. 16-byte loads need 16-byte aligned
// addresses: the pixels before the first boundary (head) and after the last (tail), fewer
// than 16 each, are counted one by one, thread t of the grid taking pixel t of each.
__global__ void histogram256_kernel(const uint8_t *pixels, uint64_t count,
                                    unsigned long long *histogram)
{
    __shared__ unsigned int block_bins[BYTE_HISTOGRAM_BINS];
    zero_block_bins(block_bins);

    const uint64_t thread = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const uint64_t threads = (uint64_t)gridDim.x * blockDim.x;
    uint64_t head = (16 - (uintptr_t)pixels % 16) % 16;
    if (head > count)
        head = count;
    const uint4 *vectors = (const uint4 *)(pixels + head);
    const uint64_t vector_count = (count - head) / 16;
    const uint64_t tail = head + vector_count * 16;
    if (thread < head)
        atomicAdd(&block_bins[pixels[thread]], 1u);
    if (tail + thread < count)
        atomicAdd(&block_bins[pixels[tail + thread]], 1u);

    for (uint64_t v = thread; v < vector_count; v += threads) {
        uint4 vector = vectors[v];
        const unsigned int words[4] = {vector.x, vector.y, vector.z, vector.w};
        for (int w = 0; w < 4; w++)
            for (int byte = 0; byte < 4; byte++)
                atomicAdd(&block_bins[(words[w] >> (8 * byte)) & 0xFF], 1u);
    }
    commit_block_bins(block_bins, histogram);
}

void lab9_histogram256(const uint8_t *d_pixels, uint64_t pixels, unsigned long long *d_histogram)
{
    CUDA_CHECK(cudaMemset(d_histogram, 0, BYTE_HISTOGRAM_BINS * sizeof *d_histogram));
    if (pixels == 0)
        return;
    histogram256_kernel<<<coarsened_blocks_for(pixels), threads_per_block>>>(d_pixels, pixels,
                                                                             d_histogram);
    CUDA_CHECK_LAUNCH();
}
