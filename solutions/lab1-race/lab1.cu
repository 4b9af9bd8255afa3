// Lab 1 reference solution: race conditions.
#include "lab1.h"

#include "cuda_check.h"

struct race_outcome lab1_simulate_race(unsigned long long initial_memory,
                                       const int schedule[RACE_STEPS])
{
    struct race_outcome outcome = {initial_memory, {0, 0}};
    unsigned long long new_value[2] = {0, 0};
    int next_step[2] = {0, 0}; // 0: read, 1: add, 2: write

    for (int time = 0; time < RACE_STEPS; time++) {
        int thread = schedule[time] - 1;
        switch (next_step[thread]++) {
        case 0: // Old <- Mem[x]
            outcome.old[thread] = outcome.memory;
            break;
        case 1: // New <- Old + 1
            new_value[thread] = outcome.old[thread] + 1;
            break;
        case 2: // Mem[x] <- New: whatever another thread wrote since our read is overwritten
            outcome.memory = new_value[thread];
            break;
        }
    }
    return outcome;
}

__global__ void racy_count_kernel(unsigned long long *count)
{
    // Read, add, write: between this thread's read and its write, thousands of others read
    // the same old value, and all their increments but one are lost.
    *count = *count + 1;
}

void lab1_launch_racy_count(unsigned long long *d_count, unsigned int blocks,
                            unsigned int threads_per_block)
{
    racy_count_kernel<<<blocks, threads_per_block>>>(d_count);
    CUDA_CHECK_LAUNCH();
}

unsigned long long lab1_count_program(unsigned int blocks, unsigned int threads_per_block,
                                      float *elapsed_ms)
{
    unsigned long long *d_count = NULL;
    CUDA_CHECK(cudaMalloc((void **)&d_count, sizeof *d_count));
    CUDA_CHECK(cudaMemset(d_count, 0, sizeof *d_count));

    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));

    CUDA_CHECK(cudaEventRecord(start, 0));
    lab1_launch_racy_count(d_count, blocks, threads_per_block);
    CUDA_CHECK(cudaEventRecord(stop, 0));
    CUDA_CHECK(cudaEventSynchronize(stop));
    CUDA_CHECK(cudaEventElapsedTime(elapsed_ms, start, stop));

    unsigned long long count = 0;
    CUDA_CHECK(cudaMemcpy(&count, d_count, sizeof count, cudaMemcpyDeviceToHost));

    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    CUDA_CHECK(cudaFree(d_count));
    return count;
}
