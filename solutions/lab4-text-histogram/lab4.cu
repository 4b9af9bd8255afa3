// SKELETON: // Lab 4: the text histogram. Read README.md in this folder first; the TODOs follow its tasks.
// SKELETON: // Build and grade with:   make lab4 && ./grade lab4
// BEGIN SOLUTION
// Lab 4 reference solution: the text histogram, sequential and with global atomics. The
// skeleton, labs/lab4-text-histogram/lab4.cu, is made from this file by grader/make_skeleton.py,
// which says how the markers work.
// END SOLUTION
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

    // TODO 1: count every lowercase letter of text[0 .. length) into its bin (four letters a
    // bin, common/histogram.h) and ignore every other byte: capitals, digits, spaces,
    // punctuation, and bytes of 0x80 and above, which are negative in a (signed) char. Any
    // length must work, 0 and more than 4 GiB included. The grader (sequential::*, no GPU
    // needed) compares every bin with the exact counts, on texts from 0 bytes to 16 MiB, of
    // letters only, of random bytes, of no letters at all, and of English with UTF-8 in it.
    // BEGIN SOLUTION
    for (uint64_t i = 0; i < length; i++) {
        // char may be signed: a byte of 0x80 or more gives a negative position, which the
        // lower bound of the test rejects.
        int position = text[i] - 'a';
        if (position >= 0 && position < 26)
            histogram[position / LETTERS_PER_BIN]++;
    }
    // END SOLUTION
    // SKELETON: (void)text;
    // SKELETON: (void)length;
}

// ---------------------------------------------------------------------------------------
// Part B (GPU): one thread per byte, global atomics (figure 9.6).
// ---------------------------------------------------------------------------------------

// TODO 2: one thread per byte: the thread of global index i counts byte i, with TODO 1's
// letter test, into histogram, which every thread of the grid shares. Threads that meet
// letters of the same bin at the same moment must not lose a count; threads past the end of
// the text do nothing; the index must not wrap around on a text of more than 2^32 bytes. The
// grader (atomic::*) runs every text three times and checks the exact counts; it puts letters
// just before and after the text and counters around the seven bins, and names a read or a
// write outside them; it counts a text of 2^32 + 257 bytes; and it looks in the machine code
// for an atomic add on global memory (technique::*).
__global__ void histogram_atomic_kernel(const char *text, uint64_t length,
                                        unsigned long long *histogram)
{
    // BEGIN SOLUTION
    // 64-bit index: past 2^32 bytes, an index computed in unsigned int (blockIdx.x * blockDim.x
    // is one) wraps around to the start of the text.
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < length) {
        int position = text[i] - 'a';
        if (position >= 0 && position < 26)
            atomicAdd(&histogram[position / LETTERS_PER_BIN], 1ULL);
    }
    // END SOLUTION
    // SKELETON: (void)text;
    // SKELETON: (void)length;
    // SKELETON: (void)histogram;
}

void lab4_histogram_atomic(const char *d_text, uint64_t length, unsigned long long *d_histogram)
{
    // The kernel only adds, so the bins must start at zero.
    CUDA_CHECK(cudaMemset(d_histogram, 0, HISTOGRAM_BINS * sizeof *d_histogram));
    if (length == 0)
        return; // a grid of 0 blocks is an invalid launch

    // TODO 3: run histogram_atomic_kernel with one thread per byte, in blocks of 256 threads,
    // with enough blocks to reach the last byte of any length (the last block may run past
    // the end), and check that the launch succeeded. The grader's texts of odd and prime
    // lengths show a grid that stops short (the tail of the text is not counted), and a
    // failed launch is reported with its cause.
    // BEGIN SOLUTION
    const unsigned int threads_per_block = 256;
    uint64_t blocks = (length + threads_per_block - 1) / threads_per_block;
    histogram_atomic_kernel<<<(unsigned int)blocks, threads_per_block>>>(d_text, length,
                                                                        d_histogram);
    CUDA_CHECK_LAUNCH();
    // END SOLUTION
    // SKELETON: (void)d_text;
}
