/* The demo program of lab 9: runs the lab's histogram functions once on an image and prints
 * the bins beside the CPU reference's, with the time of that one run. */
#ifndef COMMON_IMAGE_DEMO_H
#define COMMON_IMAGE_DEMO_H

#include "image_reference.h"

#ifdef __cplusplus
extern "C" {
#endif

struct small_demo_entry {
    const char *name;
    small_image_histogram *function;
};

struct byte_demo_entry {
    const char *name;
    byte_image_histogram *function;
};

/* usage: demo [FILE [THREADS_PER_BLOCK]]: the pixels of FILE (a binary PGM, or any file's
 * bytes), or the shipped photograph; part A's functions on those pixels >> 4 in blocks of
 * THREADS_PER_BLOCK (default 256), part B's on the pixels. Returns the process exit code: 0
 * when every function matched the CPU reference. */
int run_image_demo(int argc, char **argv, host_small_image_histogram *host,
                   const struct small_demo_entry *small, int small_count,
                   const struct byte_demo_entry *bytes, int byte_count);

#ifdef __cplusplus
}
#endif

#endif
