// Lab 3 reference solution: counting in shared memory.
#include "lab3.h"

#include "cuda_check.h"

__global__ void shared_count_kernel(unsigned long long *count)
{
    __shared__ unsigned int block_count;

    if (threadIdx.x == 0)
        block_count = 0;
    __syncthreads(); // nobody counts before the counter is zeroed

    atomicAdd(&block_count, 1u);

    __syncthreads(); // everybody has counted before the block's total is read
    if (threadIdx.x == 0)
        atomicAdd(count, (unsigned long long)block_count);
}

void lab3_launch_shared_count(unsigned long long *d_count, unsigned int blocks,
                              unsigned int threads_per_block)
{
    shared_count_kernel<<<blocks, threads_per_block>>>(d_count);
    CUDA_CHECK_LAUNCH();
}
