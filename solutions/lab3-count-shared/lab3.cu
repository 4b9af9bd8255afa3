// SKELETON: // Lab 3: counting in shared memory. Read README.md in this folder first; the TODOs follow its tasks.
// SKELETON: // Build and grade with:   make lab3 && ./grade lab3
// BEGIN SOLUTION
// Lab 3 reference solution: counting in shared memory. The skeleton,
// labs/lab3-count-shared/lab3.cu, is made from this file by grader/make_skeleton.py, which says
// how the markers work.
// END SOLUTION
#include "lab3.h"

#include "cuda_check.h"

__global__ void shared_count_kernel(unsigned long long *count)
{
    // One counter per block, in the block's shared memory: atomics on it are far cheaper than
    // atomics on global memory, and the block's threads compete only with each other.
    __shared__ unsigned int block_count;

    // TODO 1 (zero): block_count starts at 0 for this launch.
    // Constraints: shared memory is not initialised (it holds whatever was there before); the
    // threads of a block run in no particular order, yet no thread may count before the
    // counter is zeroed.
    // BEGIN SOLUTION
    if (threadIdx.x == 0)
        block_count = 0;
    __syncthreads(); // nobody counts before the counter is zeroed
    // END SOLUTION

    // TODO 2 (count): every thread adds 1 to block_count, once, and no increment is lost.
    // Constraints: up to 1024 threads of the block update it at the same moment.
    // BEGIN SOLUTION
    atomicAdd(&block_count, 1u);
    // END SOLUTION

    // TODO 3 (commit): the block's total is added to *count exactly once per block, and only
    // after every thread of the block has counted.
    // Constraints: one global update per block, not one per thread; *count is 64-bit and
    // block_count 32-bit.
    // BEGIN SOLUTION
    __syncthreads(); // everybody has counted before the block's total is read
    if (threadIdx.x == 0)
        atomicAdd(count, (unsigned long long)block_count);
    // END SOLUTION

    // The grader checks: the exact count for every launch shape it tries, from 1 x 1 thread to
    // 32K x 1024, including blocks that are not whole warps (999, 255, 33 threads); the
    // machine code has an atomic on shared memory.
    // SKELETON: (void)count;
    // SKELETON: (void)block_count;
}

void lab3_launch_shared_count(unsigned long long *d_count, unsigned int blocks,
                              unsigned int threads_per_block)
{
    // TODO 4: run shared_count_kernel on d_count, in a grid of `blocks` blocks of
    // `threads_per_block` threads.
    // Constraints: as in labs 1 and 2, return without waiting for the kernel, and let a failed
    // launch stop the program with CUDA's message (common/cuda_check.h).
    // The grader checks: the counts of TODOs 1 to 3.
    // BEGIN SOLUTION
    shared_count_kernel<<<blocks, threads_per_block>>>(d_count);
    CUDA_CHECK_LAUNCH();
    // END SOLUTION
    // SKELETON: (void)d_count;
    // SKELETON: (void)blocks;
    // SKELETON: (void)threads_per_block;
}
