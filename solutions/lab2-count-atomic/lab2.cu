// SKELETON: // Lab 2: counting with atomics. Read README.md in this folder first; the TODOs follow its tasks.
// SKELETON: // Build and grade with:   make lab2 && ./grade lab2
// BEGIN SOLUTION
// Lab 2 reference solution: counting with atomics. The skeleton, labs/lab2-count-atomic/lab2.cu,
// is made from this file by grader/make_skeleton.py, which says how the markers work.
// END SOLUTION
#include "lab2.h"

#include "cuda_check.h"

// ---------------------------------------------------------------------------------------
// Part A: the count of lab 1, made exact with atomicAdd.
// ---------------------------------------------------------------------------------------

// TODO 1: every thread adds 1 to *count, once, and no increment is lost, however many
// threads update the counter at the same moment.
// Constraints: one indivisible read-modify-write per thread, on the 64-bit counter itself (no
// lock, no loop).
// The grader checks: the exact count for every launch shape it tries, from 1 x 1 thread to
// 32K x 1024, including blocks that are not whole warps; the machine code has an atomic add
// on global memory.
__global__ void atomic_count_kernel(unsigned long long *count)
{
    // BEGIN SOLUTION
    // One indivisible read-modify-write: increments on the same address are serialised, none lost.
    atomicAdd(count, 1ULL);
    // END SOLUTION
    // SKELETON: (void)count;
}

void lab2_launch_atomic_count(unsigned long long *d_count, unsigned int blocks,
                              unsigned int threads_per_block)
{
    // TODO 2: run atomic_count_kernel on d_count, in a grid of `blocks` blocks of
    // `threads_per_block` threads.
    // Constraints: as in lab 1, return without waiting for the kernel, and let a failed
    // launch stop the program with CUDA's message (common/cuda_check.h).
    // The grader checks: the counts of TODO 1.
    // BEGIN SOLUTION
    atomic_count_kernel<<<blocks, threads_per_block>>>(d_count);
    CUDA_CHECK_LAUNCH();
    // END SOLUTION
    // SKELETON: (void)d_count;
    // SKELETON: (void)blocks;
    // SKELETON: (void)threads_per_block;
}

// ---------------------------------------------------------------------------------------
// Part B: a float atomic add built from atomicCAS (compare and swap).
// ---------------------------------------------------------------------------------------

// TODO 3: add value to *address atomically, and return the value *address held just before
// your addition took effect.
// Constraints: built on compare-and-swap alone (not CUDA's own float atomic add); correct
// whatever the other threads do to *address at the same time: no addition lost, none made
// twice; a float's bits must reach memory unchanged (a numeric conversion would round them).
// The grader checks: through TODO 4, sums of 0, 1, 1000 and 65,537 values must be exact; the
// machine code has a compare-and-swap.
__device__ float cas_atomic_add(float *address, float value)
{
    // BEGIN SOLUTION
    unsigned int *bits_address = (unsigned int *)address;
    unsigned int expected = *bits_address;
    for (;;) {
        unsigned int desired = __float_as_uint(__uint_as_float(expected) + value);
        unsigned int found = atomicCAS(bits_address, expected, desired);
        if (found == expected)
            return __uint_as_float(found);
        expected = found; // another thread got in first: retry on top of its sum
    }
    // END SOLUTION
    // SKELETON: (void)address;
    // SKELETON: (void)value;
    // SKELETON: return 0.0f;
}

// TODO 4: add values[0 .. count) into *sum, one value a thread, with your cas_atomic_add.
// Constraints: each value belongs to one thread of the whole grid, not of its block; the
// launcher below rounds the grid up to whole blocks, so the last threads have no value and
// must not read one.
// The grader checks: the exact sums of TODO 3; values placed past the end of the array must
// not be added.
__global__ void cas_float_sum_kernel(float *sum, const float *values, unsigned int count)
{
    // BEGIN SOLUTION
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count)
        cas_atomic_add(sum, values[i]);
    // END SOLUTION
    // SKELETON: (void)sum;
    // SKELETON: (void)values;
    // SKELETON: (void)count;
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
