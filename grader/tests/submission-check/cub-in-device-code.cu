// lab: lab8-challenge
// expect pass:
// CUB in device code (a block-wide sum): its headers define constants (inline variables) for the
// whole program, which the check lets through; only CUB's functions would stand in for the grader's.
#include "lab8.h"
#include "cuda_check.h"
#include <cub/block/block_reduce.cuh>
#include <cub/warp/warp_reduce.cuh>
template <int THREADS>
__global__ void histogram_kernel(const char *text, uint64_t length, unsigned long long *histogram)
{
    using Reduce = cub::BlockReduce<unsigned int, THREADS>;
    __shared__ typename Reduce::TempStorage storage;
    for (int bin = 0; bin < HISTOGRAM_BINS; bin++) {
        unsigned int count = 0;
        for (uint64_t i = blockIdx.x * THREADS + threadIdx.x; i < length; i += (uint64_t)gridDim.x * THREADS)
            count += (unsigned)(text[i] - 'a') < 26 && (text[i] - 'a') / 4 == bin;
        unsigned int total = Reduce(storage).Sum(count);
        if (threadIdx.x == 0) atomicAdd(&histogram[bin], (unsigned long long)total);
        __syncthreads();
    }
}
void lab8_histogram(const char *d_text, uint64_t length, unsigned long long *d_histogram)
{
    CUDA_CHECK(cudaMemset(d_histogram, 0, HISTOGRAM_BINS * sizeof *d_histogram));
    histogram_kernel<256><<<132, 256>>>(d_text, length, d_histogram);
    CUDA_CHECK_LAUNCH();
}
