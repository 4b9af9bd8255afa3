/* Lab 1, race conditions: the contract shared by your code (lab1.cu), the reference solution
 * and the grader. Do not change it: the grader is compiled against it. */
#ifndef LAB1_H
#define LAB1_H

#ifdef __cplusplus
extern "C" {
#endif

/* Two threads each run three steps on one memory word x:
 *     step 1  Old <- Mem[x]
 *     step 2  New <- Old + 1
 *     step 3  Mem[x] <- New
 * A schedule lists, for each of the RACE_STEPS moments in time, which thread (1 or 2) takes
 * its next step. {1,1,1,2,2,2} is the slides' timing scenario 1. */
#define RACE_STEPS 6

struct race_outcome {
    unsigned long long memory; /* Mem[x] after both threads are done */
    unsigned long long old[2]; /* old[0]: thread 1's Old, old[1]: thread 2's Old */
};

/* Part A, on the CPU: play a schedule, starting from Mem[x] = initial_memory. */
struct race_outcome lab1_simulate_race(unsigned long long initial_memory,
                                       const int schedule[RACE_STEPS]);

/* Part B, on the GPU: launch blocks x threads_per_block threads that each add 1 to *d_count
 * with a plain read-add-write, no atomic. d_count is device memory holding 0. Returns without
 * waiting for the kernel. */
void lab1_launch_racy_count(unsigned long long *d_count, unsigned int blocks,
                            unsigned int threads_per_block);

/* Part B's whole program, as in the slides: allocate the counter on the GPU, zero it, time
 * lab1_launch_racy_count with CUDA events, copy the count back, free everything. Returns the
 * count and stores the kernel's time in *elapsed_ms. */
unsigned long long lab1_count_program(unsigned int blocks, unsigned int threads_per_block,
                                      float *elapsed_ms);

#ifdef __cplusplus
}
#endif

#endif
