// Lab 4: the text histogram. Read README.md in this folder first; the TODOs follow its tasks.
// Build and grade with:   make lab4 && ./grade lab4
#include "lab4.h"

#include "cuda_check.h"

// ---------------------------------------------------------------------------------------
// Part A (CPU): the sequential histogram of figure 9.2.
// ---------------------------------------------------------------------------------------

void lab4_histogram_sequential(const char *text, uint64_t length,
                               unsigned long long histogram[HISTOGRAM_BINS])
{
    for (int bin = 0; bin < HISTOGRAM_BINS; bin++)
        histogram[bin] = 0;

    // TODO 1: for each byte, compute its position in the alphabet (text[i] - 'a'); when it is
    // a lowercase letter (0 <= position < 26), add 1 to histogram[position / LETTERS_PER_BIN].
    // Careful: char is signed here, so a byte of 0x80 or more is negative.
    (void)text;
    (void)length;
}

// ---------------------------------------------------------------------------------------
// Part B (GPU): one thread per byte, global atomics (figure 9.6).
// ---------------------------------------------------------------------------------------

// TODO 2: thread i handles byte i: if i is inside the text and text[i] is a lowercase letter,
// add 1 to its bin with atomicAdd. Compute i as a 64-bit number (uint64_t): texts can be
// longer than an unsigned int can count.
__global__ void histogram_atomic_kernel(const char *text, uint64_t length,
                                        unsigned long long *histogram)
{
    (void)text;
    (void)length;
    (void)histogram;
}

void lab4_histogram_atomic(const char *d_text, uint64_t length, unsigned long long *d_histogram)
{
    // The kernel only adds, so the bins must start at zero.
    CUDA_CHECK(cudaMemset(d_histogram, 0, HISTOGRAM_BINS * sizeof *d_histogram));
    if (length == 0)
        return; // a grid of 0 blocks is an invalid launch

    // TODO 3: launch histogram_atomic_kernel with 256 threads a block and enough blocks for
    // one thread per byte (round up), then check the launch with CUDA_CHECK_LAUNCH().
    (void)d_text;
}
