/* The reference solutions, linked into the graders under these names: the Makefile copies
 * each solution's object and renames its lab<N>_ functions to reference_lab<N>_ (and hides
 * its kernels), so a student's lab and the references can live in one program and be timed
 * side by side. The prototypes are the labs' own, through the shared function types. */
#ifndef GRADER_REFERENCES_H
#define GRADER_REFERENCES_H

#include "counting.h"
#include "histogram.h"

count_launcher reference_lab1_launch_racy_count;
count_launcher reference_lab2_launch_atomic_count;
count_launcher reference_lab3_launch_shared_count;

void reference_lab4_histogram_sequential(const char *text, uint64_t length,
                                         unsigned long long histogram[HISTOGRAM_BINS]);
histogram_function reference_lab4_histogram_atomic;
histogram_function reference_lab5_histogram_private_global;
histogram_function reference_lab5_histogram_private_shared;
void reference_lab6_histogram_contiguous(const char *d_text, uint64_t length,
                                         unsigned long long *d_histogram,
                                         unsigned int chars_per_thread);
void reference_lab6_histogram_interleaved(const char *d_text, uint64_t length,
                                          unsigned long long *d_histogram, unsigned int blocks);
unsigned int reference_lab6_chosen_chars_per_thread(void);
unsigned int reference_lab6_chosen_blocks(int multiprocessors);
histogram_function reference_lab7_histogram_aggregated;
histogram_function reference_lab7_histogram_global_contiguous;
histogram_function reference_lab7_histogram_global_aggregated;
histogram_function reference_lab8_histogram;

#endif
