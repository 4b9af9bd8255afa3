// Lab 2 reference solution: counting with atomics.
#include "lab2.h"

#include "cuda_check.h"

__global__ void atomic_count_kernel(unsigned long long *count)
{
    // One indivisible read-modify-write: increments on the same address are serialised, none lost.
    atomicAdd(count, 1ULL);
}

void lab2_launch_atomic_count(unsigned long long *d_count, unsigned int blocks,
                              unsigned int threads_per_block)
{
    atomic_count_kernel<<<blocks, threads_per_block>>>(d_count);
    CUDA_CHECK_LAUNCH();
}

__device__ float cas_atomic_add(float *address, float value)
{
    unsigned int *bits_address = (unsigned int *)address;
    unsigned int expected = *bits_address;
    for (;;) {
        unsigned int desired = __float_as_uint(__uint_as_float(expected) + value);
        unsigned int found = atomicCAS(bits_address, expected, desired);
        if (found == expected)
            return __uint_as_float(found);
        expected = found; // another thread got in first: retry on top of its sum
    }
}

__global__ void cas_float_sum_kernel(float *sum, const float *values, unsigned int count)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count)
        cas_atomic_add(sum, values[i]);
}

void lab2_launch_cas_float_sum(float *d_sum, const float *d_values, unsigned int count)
{
    const unsigned int threads_per_block = 256;
    // Round up, so the last partial block is launched too.
    unsigned int blocks = (count + threads_per_block - 1) / threads_per_block;
    if (blocks == 0)
        return; // nothing to add, and a grid of 0 blocks is an invalid launch
    cas_float_sum_kernel<<<blocks, threads_per_block>>>(d_sum, d_values, count);
    CUDA_CHECK_LAUNCH();
}
