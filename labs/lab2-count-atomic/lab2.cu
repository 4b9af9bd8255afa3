// Lab 2: counting with atomics. Read README.md in this folder first; the TODOs follow its tasks.
// Build and grade with:   make lab2 && ./grade lab2
#include "lab2.h"

#include "cuda_check.h"

// ---------------------------------------------------------------------------------------
// Part A: the count of lab 1, made exact with atomicAdd.
// ---------------------------------------------------------------------------------------

// TODO 1: every thread adds 1 to *count with atomicAdd, so no increment is lost.
__global__ void atomic_count_kernel(unsigned long long *count)
{
    (void)count;
}

void lab2_launch_atomic_count(unsigned long long *d_count, unsigned int blocks,
                              unsigned int threads_per_block)
{
    // TODO 2: launch atomic_count_kernel with `blocks` blocks of `threads_per_block` threads
    // and check the launch with CUDA_CHECK_LAUNCH().
    (void)d_count;
    (void)blocks;
    (void)threads_per_block;
}

// ---------------------------------------------------------------------------------------
// Part B: a float atomic add built from atomicCAS (compare and swap).
// ---------------------------------------------------------------------------------------

// TODO 3: add value to *address atomically and return the value *address held before, using
// only atomicCAS. atomicCAS works on unsigned int, so move between a float and its bits with
// __float_as_uint() and __uint_as_float(). Loop: read the current bits, compute the new sum,
// try to swap it in; if another thread changed *address in between, atomicCAS returns what
// it found instead of what you expected: start again from that value.
__device__ float cas_atomic_add(float *address, float value)
{
    (void)address;
    (void)value;
    return 0.0f;
}

// TODO 4: thread i (counting over the whole grid) adds values[i] to *sum with
// cas_atomic_add; threads past the end of the array (i >= count) do nothing.
__global__ void cas_float_sum_kernel(float *sum, const float *values, unsigned int count)
{
    (void)sum;
    (void)values;
    (void)count;
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
