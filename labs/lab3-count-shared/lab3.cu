// Lab 3: counting in shared memory. Read README.md in this folder first; the TODOs follow its tasks.
// Build and grade with:   make lab3 && ./grade lab3
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

    // TODO 2 (count): every thread adds 1 to block_count, once, and no increment is lost.
    // Constraints: up to 1024 threads of the block update it at the same moment.

    // TODO 3 (commit): the block's total is added to *count exactly once per block, and only
    // after every thread of the block has counted.
    // Constraints: one global update per block, not one per thread; *count is 64-bit and
    // block_count 32-bit.

    // The grader checks: the exact count for every launch shape it tries, from 1 x 1 thread to
    // 32K x 1024, including blocks that are not whole warps (999, 255, 33 threads); the
    // machine code has an atomic on shared memory.
    (void)count;
    (void)block_count;
}

void lab3_launch_shared_count(unsigned long long *d_count, unsigned int blocks,
                              unsigned int threads_per_block)
{
    // TODO 4: run shared_count_kernel on d_count, in a grid of `blocks` blocks of
    // `threads_per_block` threads.
    // Constraints: as in labs 1 and 2, return without waiting for the kernel, and let a failed
    // launch stop the program with CUDA's message (common/cuda_check.h).
    // The grader checks: the counts of TODOs 1 to 3.
    (void)d_count;
    (void)blocks;
    (void)threads_per_block;
}
