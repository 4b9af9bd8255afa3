// SKELETON: // Lab 1: race conditions. Read README.md in this folder first; the TODOs follow its tasks.
// SKELETON: // Build and grade with:   make lab1 && ./grade lab1
// BEGIN SOLUTION
// Lab 1 reference solution: race conditions. The skeleton, labs/lab1-race/lab1.cu, is made from
// this file by grader/make_skeleton.py, which says how the markers work.
// END SOLUTION
#include "lab1.h"

#include "cuda_check.h"

// ---------------------------------------------------------------------------------------
// Part A (CPU): simulate two threads incrementing one memory word.
// ---------------------------------------------------------------------------------------

struct race_outcome lab1_simulate_race(unsigned long long initial_memory,
                                       const int schedule[RACE_STEPS])
{
    struct race_outcome outcome = {initial_memory, {0, 0}};

    // TODO 1: play the schedule and return what it leaves: Mem[x] in outcome.memory, thread
    // 1's Old in outcome.old[0], thread 2's in outcome.old[1].
    // Constraints: schedule[time] (1 or 2) names the thread that moves at that moment, and a
    // thread that moves takes the next of its own three steps (lab1.h), in order. Old and New
    // are private to each thread; Mem[x] (outcome.memory) is the only thing they share.
    // The grader checks: the slides' four scenarios, and all 20 orders of the six moves,
    // starting from a Mem[x] other than 0.
    // BEGIN SOLUTION
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
    // END SOLUTION
    // SKELETON: (void)schedule;

    return outcome;
}

// ---------------------------------------------------------------------------------------
// Part B (GPU): count threads with a plain, non-atomic increment.
// ---------------------------------------------------------------------------------------

// TODO 2: every thread adds 1 to *count, once.
// Constraints: no atomic operation of any kind: the read, the add and the write must be the
// three separate steps of Part A, so that the threads race.
// The grader checks: one thread alone counts exactly 1; the slides' launch counts at least 1,
// no more than the threads launched, and fewer (updates lost); the machine code has no atomic.
__global__ void racy_count_kernel(unsigned long long *count)
{
    // BEGIN SOLUTION
    // Read, add, write: between this thread's read and its write, thousands of others read
    // the same old value, and all their increments but one are lost.
    *count = *count + 1;
    // END SOLUTION
    // SKELETON: (void)count;
}

void lab1_launch_racy_count(unsigned long long *d_count, unsigned int blocks,
                            unsigned int threads_per_block)
{
    // TODO 3: run racy_count_kernel on d_count, in a grid of `blocks` blocks of
    // `threads_per_block` threads.
    // Constraints: return without waiting for the kernel (the caller times it); a launch that
    // fails (an impossible shape) must stop the program with CUDA's message, as every failed
    // CUDA call in the kit does (common/cuda_check.h), instead of going unnoticed.
    // The grader checks: the counts of 1 x 1 and of the slides' 32K x 1024 threads (TODO 2).
    // BEGIN SOLUTION
    racy_count_kernel<<<blocks, threads_per_block>>>(d_count);
    CUDA_CHECK_LAUNCH();
    // END SOLUTION
    // SKELETON: (void)d_count;
    // SKELETON: (void)blocks;
    // SKELETON: (void)threads_per_block;
}

unsigned long long lab1_count_program(unsigned int blocks, unsigned int threads_per_block,
                                      float *elapsed_ms)
{
    unsigned long long count = 0;
    *elapsed_ms = 0.0f;

    // TODO 4: the whole host program of the slides: count blocks x threads_per_block threads
    // with lab1_launch_racy_count into a counter in GPU memory that starts at 0, return the
    // count, and store the kernel's time, in milliseconds, in *elapsed_ms.
    // Constraints: time the kernel alone (not the allocation nor the copy), on the GPU's own
    // clock with CUDA events, and read the time only once the kernel is done; every CUDA call
    // checked (common/cuda_check.h); nothing left allocated or created on return.
    // The grader checks: 1 x 1 thread returns 1 with a time above 0; the slides' launch
    // returns a count between 1 and the number of threads.
    // BEGIN SOLUTION
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

    CUDA_CHECK(cudaMemcpy(&count, d_count, sizeof count, cudaMemcpyDeviceToHost));

    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    CUDA_CHECK(cudaFree(d_count));
    // END SOLUTION
    // SKELETON: (void)blocks;
    // SKELETON: (void)threads_per_block;

    return count;
}
