// Lab 9: the image histogram. Read README.md in this folder first; the TODOs follow its tasks.
// Build and grade with:   make lab9 && ./grade lab9
#include "lab9.h"

#include "cuda_check.h"
#include "device.h"

// A grid of at most this many blocks covers any image: the kernels loop over the pixels
// (grid-stride), so an image larger than the grid's threads needs no larger grid. It also
// bounds what one block counts, below 2^32 for any image of fewer than 2^52 pixels: a block's
// 32-bit counters in shared memory cannot overflow.
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
    // TODO 1: leave in histogram the count of each value 0 to 15 among image[0, pixels); a
    // pixel of any other value counts in no bin (the contract's rule). histogram holds garbage
    // on entry. The grader (host16::*) checks images of 0, 1 and about a million pixels, the
    // photograph and images with values of 16 and above, up to 0xFFFFFFFF, and names a read
    // past the end, a value of 16 or more counted, and a write outside the 16 bins.
    (void)image;
    (void)pixels;
    (void)histogram;
}

__global__ void histogram16_global_kernel(const uint32_t *image, uint64_t pixels,
                                          unsigned long long *histogram)
{
    // TODO 2: together the grid's threads count every pixel of image[0, pixels) exactly once
    // into histogram, by TODO 1's rule, whatever the number of blocks and of threads a block:
    // a thread takes pixel i = its global index, then i plus the grid's thread count, and so
    // on, while i < pixels (indices in 64 bits). Threads of the whole grid meet on one bin:
    // none may lose a count. The grader (global16::*) runs TODO 1's images and blocks of 1, 5,
    // 15, 16, 17, 100, 256 and 1024 threads (the contract allows any size from 1 to 1024),
    // three times each.
    (void)image;
    (void)pixels;
    (void)histogram;
}

void lab9_histogram16_global(const uint32_t *d_image, uint64_t pixels,
                             unsigned long long *d_histogram, unsigned int threads_per_block)
{
    CUDA_CHECK(cudaMemset(d_histogram, 0, SMALL_HISTOGRAM_BINS * sizeof *d_histogram));
    if (pixels == 0)
        return;
    unsigned int blocks = blocks_for(pixels, threads_per_block);
    // TODO 3: run histogram16_global_kernel on `blocks` blocks of threads_per_block threads,
    // and check that the launch succeeded.
    (void)blocks;
    (void)d_image;
}

__global__ void histogram16_shared_kernel(const uint32_t *image, uint64_t pixels,
                                          unsigned long long *histogram)
{
    __shared__ unsigned int block_bins[SMALL_HISTOGRAM_BINS];

    // TODO 4: zero the sixteen block_bins, the work shared among the block's threads whatever
    // their number: a block may have fewer threads than there are bins (1, 5, 15 are graded).
    // No thread may count before every bin is zero.

    // TODO 5: count the grid's pixels as in TODO 2, into block_bins: none may lose a count.

    // TODO 6: once every thread of the block has counted, add each non-zero bin into
    // histogram, once per block, the work shared as in TODO 4. The grader (shared16::*) runs
    // the images and block sizes of TODO 2, names bins that a block of fewer than 16 threads
    // left out, and looks in the machine code for atomics on shared memory (technique::*).
    (void)image;
    (void)pixels;
    (void)histogram;
    (void)block_bins;
}

void lab9_histogram16_shared(const uint32_t *d_image, uint64_t pixels,
                             unsigned long long *d_histogram, unsigned int threads_per_block)
{
    CUDA_CHECK(cudaMemset(d_histogram, 0, SMALL_HISTOGRAM_BINS * sizeof *d_histogram));
    if (pixels == 0)
        return;
    unsigned int blocks = blocks_for(pixels, threads_per_block);
    // TODO 7: run histogram16_shared_kernel as TODO 3 runs its kernel, and check the launch.
    (void)blocks;
    (void)d_image;
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

__global__ void histogram256_private_kernel(const uint8_t *pixels, uint64_t count,
                                            unsigned long long *histogram)
{
    __shared__ unsigned int block_bins[BYTE_HISTOGRAM_BINS];

    // TODO 8: lab 5's private bins for 256 bins: zero block_bins, count every pixel of
    // pixels[0, count) once into its bin, the grid's threads looping over the pixels as in
    // TODO 2 (the grid is a few blocks a multiprocessor, far fewer threads than pixels), then
    // add each non-zero bin into histogram once per block. The grader (private256::*) runs
    // images of 0 to 16 MiB + 3 pixels, starting anywhere, of every kind and the photograph,
    // and one of more than 2^32 pixels, three times each.
    (void)pixels;
    (void)count;
    (void)histogram;
    (void)block_bins;
}

void lab9_histogram256_private(const uint8_t *d_pixels, uint64_t pixels,
                               unsigned long long *d_histogram)
{
    CUDA_CHECK(cudaMemset(d_histogram, 0, BYTE_HISTOGRAM_BINS * sizeof *d_histogram));
    if (pixels == 0)
        return;
    unsigned int blocks = coarsened_blocks_for(pixels);
    // TODO 9: run histogram256_private_kernel on `blocks` blocks of threads_per_block threads,
    // and check the launch.
    (void)blocks;
    (void)threads_per_block;
    (void)d_pixels;
}

void lab9_histogram256(const uint8_t *d_pixels, uint64_t pixels, unsigned long long *d_histogram)
{
    // TODO 10: the same histogram as fast as the memory allows: on 1 GiB images at least 90%
    // of the bandwidth of a device-to-device copy on every image, the single value included,
    // and faster than CUB's DeviceHistogram. Any kernels of your own. d_pixels may start at any
    // address. The grader (fast256::*) checks the images of TODO 8 and the one past 4 GiB,
    // looks in the machine code for 16-byte loads and atomics on shared memory (technique::*),
    // and prints your share of the copy's bandwidth beside the reference's and CUB's (speed::*)
    // on 128 MiB images, where a call's fixed costs weigh more and the reference itself shows
    // less; your speed points compare your time with the reference's. A block's shared memory
    // beyond 48 KB is what gpu_shared_memory_per_block() (common/device.h) says the GPU at hand
    // allows: a layout that asks for more fails there. Until then it counts with your step 1.
    lab9_histogram256_private(d_pixels, pixels, d_histogram);
}
