/* The demo program of labs 4-7: runs a lab's histogram functions once on a text and prints the
 * bins beside the CPU reference's, with the time of that one run. */
#ifndef COMMON_HISTOGRAM_DEMO_H
#define COMMON_HISTOGRAM_DEMO_H

#include "histogram.h"

#ifdef __cplusplus
extern "C" {
#endif

struct demo_entry {
    const char *name;
    histogram_function *function;
};

/* usage: demo [FILE]: the file's bytes, or 64 MiB of generated English-like text. Returns the
 * process exit code: 0 when every function matched the CPU reference. */
int run_histogram_demo(int argc, char **argv, const struct demo_entry *entries, int count);

#ifdef __cplusplus
}
#endif

#endif
