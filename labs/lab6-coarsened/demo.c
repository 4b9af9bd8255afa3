/* Runs your lab 6 code once, with your chosen parameters. Run: build/student/lab6-coarsened/demo [FILE] */
#include "lab6.h"

#include "device.h"
#include "histogram_demo.h"

static void contiguous_as_chosen(const char *d_text, uint64_t length,
                                 unsigned long long *d_histogram)
{
    lab6_histogram_contiguous(d_text, length, d_histogram, lab6_chosen_chars_per_thread());
}

static void interleaved_as_chosen(const char *d_text, uint64_t length,
                                  unsigned long long *d_histogram)
{
    lab6_histogram_interleaved(d_text, length, d_histogram,
                               lab6_chosen_blocks(gpu_multiprocessors()));
}

int main(int argc, char **argv)
{
    const struct demo_entry entries[] = {
        {"lab6_histogram_contiguous (your chars_per_thread)", contiguous_as_chosen},
        {"lab6_histogram_interleaved (your grid size)", interleaved_as_chosen},
    };
    return run_histogram_demo(argc, argv, entries, 2);
}
