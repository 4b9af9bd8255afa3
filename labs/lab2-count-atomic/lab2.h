/* Lab 2, counting with atomics: the contract shared by your code (lab2.cu), the reference
 * solution and the grader. Do not change it. */
#ifndef LAB2_H
#define LAB2_H

#ifdef __cplusplus
extern "C" {
#endif

/* Part A: launch blocks x threads_per_block threads that each add 1 to *d_count with
 * atomicAdd. d_count is device memory holding 0. Returns without waiting for the kernel. */
void lab2_launch_atomic_count(unsigned long long *d_count, unsigned int blocks,
                              unsigned int threads_per_block);

/* Part B: add d_values[0 .. count) into *d_sum, each thread adding one value with the float
 * atomic add you build from atomicCAS. d_sum is device memory holding 0.0f. count may be 0. */
void lab2_launch_cas_float_sum(float *d_sum, const float *d_values, unsigned int count);

#ifdef __cplusplus
}
#endif

#endif
