/* Lab 6, thread coarsening: the contract shared by your code (lab6.cu), the reference solution
 * and the grader. Do not change it. Both kernels keep lab 5's private bins in shared memory;
 * what changes is how much of the text each thread counts, and which part. */
#ifndef LAB6_H
#define LAB6_H

#include "histogram.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Part A, contiguous partitioning (figure 9.12; the slides' Strategy I, on the book's grid, sized
 * to the text): each thread counts chars_per_thread consecutive bytes (the last thread fewer);
 * one kernel launch a call (none for an empty text), a 1-D grid of as many 1-D blocks (of any
 * size) as that takes, or one more. chars_per_thread is at least 1. Otherwise a
 * histogram_function. */
void lab6_histogram_contiguous(const char *d_text, uint64_t length,
                               unsigned long long *d_histogram, unsigned int chars_per_thread);

/* Part B, interleaved partitioning (figure 9.14; the slides' Strategy II): one kernel launch a
 * call (none for an empty text), a 1-D grid of exactly `blocks` 1-D blocks (at least 1); the
 * grid's threads stride through the text together, each taking every (grid size)-th byte. */
void lab6_histogram_interleaved(const char *d_text, uint64_t length,
                                unsigned long long *d_histogram, unsigned int blocks);

/* Part C, contiguous partitioning on a fixed grid (the lecture slides' Strategy I): one kernel
 * launch a call (none for an empty text), a 1-D grid of exactly `blocks` 1-D blocks (at least
 * 1); the text is cut into one section a thread of the grid, in the threads' order, each the
 * text's length divided by the grid's threads, rounded up (the last sections shorter, or
 * empty). */
void lab6_histogram_sections(const char *d_text, uint64_t length,
                             unsigned long long *d_histogram, unsigned int blocks);

/* Part D, your choices for the timed comparison: the chars_per_thread you would use, and the
 * number of blocks for the fixed-grid kernels (parts B and C) on a GPU with this many
 * multiprocessors. */
unsigned int lab6_chosen_chars_per_thread(void);
unsigned int lab6_chosen_blocks(int multiprocessors);

#ifdef __cplusplus
}
#endif

#endif
