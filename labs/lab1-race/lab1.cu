// Lab 1: race conditions. Read README.md in this folder first; the TODOs follow its tasks.
// Build and grade with:   make lab1 && ./grade lab1
#include "lab1.h"

#include "cuda_check.h"

// ---------------------------------------------------------------------------------------
// Part A (CPU): simulate two threads incrementing one memory word.
// ---------------------------------------------------------------------------------------

struct race_outcome lab1_simulate_race(unsigned long long initial_memory,
                                       const int schedule[RACE_STEPS])
{
    struct race_outcome outcome = {initial_memory, {0, 0}};

    // TODO 1: play the schedule. Each thread has its own Old and New and its own next step
    // (read, add or write). At each moment, schedule[time] (1 or 2) says which thread moves:
    // that thread takes its next step, on its own Old/New and on outcome.memory. Store each
    // thread's Old in outcome.old[0] (thread 1) and outcome.old[1] (thread 2).
    (void)schedule;

    return outcome;
}

// ---------------------------------------------------------------------------------------
// Part B (GPU): count threads with a plain, non-atomic increment.
// ---------------------------------------------------------------------------------------

// TODO 2: write the kernel. Every thread adds 1 to *count with an ordinary read, add and
// write (no atomic): the same three steps as in Part A.
__global__ void racy_count_kernel(unsigned long long *count)
{
    (void)count;
}

void lab1_launch_racy_count(unsigned long long *d_count, unsigned int blocks,
                            unsigned int threads_per_block)
{
    // TODO 3: launch racy_count_kernel with `blocks` blocks of `threads_per_block` threads,
    // then check the launch with CUDA_CHECK_LAUNCH().
    (void)d_count;
    (void)blocks;
    (void)threads_per_block;
}

unsigned long long lab1_count_program(unsigned int blocks, unsigned int threads_per_block,
                                      float *elapsed_ms)
{
    unsigned long long count = 0;
    *elapsed_ms = 0.0f;

    // TODO 4: the whole program of the slides, every call wrapped in CUDA_CHECK(...):
    //   a. allocate one unsigned long long on the device (cudaMalloc) and zero it (cudaMemset);
    //   b. create two events (cudaEventCreate) and record the first (cudaEventRecord);
    //   c. call lab1_launch_racy_count(...);
    //   d. record the second event, wait for it (cudaEventSynchronize), and store the time
    //      between the two in *elapsed_ms (cudaEventElapsedTime);
    //   e. copy the count back to `count` (cudaMemcpy, cudaMemcpyDeviceToHost);
    //   f. destroy the events and free the device memory.
    (void)blocks;
    (void)threads_per_block;

    return count;
}
