/* Lab 3, counting in shared memory: the contract shared by your code (lab3.cu), the reference
 * solution and the grader. Do not change it. */
#ifndef LAB3_H
#define LAB3_H

#ifdef __cplusplus
extern "C" {
#endif

/* Launch blocks x threads_per_block threads; the count of all of them must end up in
 * *d_count, exactly. Each block counts its threads in a shared-memory counter, and only one
 * thread per block adds the block's count to *d_count. d_count is device memory holding 0.
 * Returns without waiting for the kernel. */
void lab3_launch_shared_count(unsigned long long *d_count, unsigned int blocks,
                              unsigned int threads_per_block);

#ifdef __cplusplus
}
#endif

#endif
