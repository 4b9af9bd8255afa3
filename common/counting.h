/* The count program of the slides (labs 1-3), around any launcher: shared by the demos and
 * the graders so that both run a student's kernel the same way. */
#ifndef COMMON_COUNTING_H
#define COMMON_COUNTING_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Launches blocks x threads_per_block threads that together add to *d_count (device memory,
 * 0 on entry), without waiting for them. Labs 1-3 each implement one. */
typedef void count_launcher(unsigned long long *d_count, unsigned int blocks,
                            unsigned int threads_per_block);

/* Allocates a zeroed counter, runs launch once between two CUDA events, copies the count
 * back and frees the counter. Returns the count; *elapsed_ms gets the events' time. */
unsigned long long run_count_once(count_launcher *launch, unsigned int blocks,
                                  unsigned int threads_per_block, float *elapsed_ms);

/* The demos' launch: the slides' 32K blocks of 1024 threads, or "demo BLOCKS THREADS" (a small
 * launch, for compute-sanitizer). Returns 0, or 2 having printed the usage. */
#define SLIDES_DEMO_BLOCKS (32u * 1024u)
#define SLIDES_DEMO_THREADS 1024u
int launch_shape_from_arguments(int argc, char **argv, unsigned int *blocks,
                                unsigned int *threads_per_block);

/* The slides' three lines: threads launched, count, elapsed time; and updates lost, if any. */
void print_count_result(FILE *out, unsigned int blocks, unsigned int threads_per_block,
                        unsigned long long count, float elapsed_ms);

#ifdef __cplusplus
}
#endif

#endif
