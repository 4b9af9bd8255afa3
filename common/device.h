/* What the grader needs to know about the GPU: whether there is one, and its name and size. */
#ifndef COMMON_DEVICE_H
#define COMMON_DEVICE_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct gpu_facts {
    char name[256];
    int major, minor;     /* compute capability */
    int multiprocessors;
    int l2_cache_bytes;
    size_t free_memory_bytes;
    size_t total_memory_bytes;
};

/* True when device 0 can run kernels; otherwise false with a one-line reason. Never exits, so a
 * test without a GPU can skip instead of fail. */
bool gpu_available(char *reason, size_t reason_size);

/* The multiprocessor count of device 0: cheap enough to ask before every launch that sizes
 * its grid by it (exits with a message when there is no device). */
int gpu_multiprocessors(void);

/* Facts about device 0 (exits with a message when there is none). */
struct gpu_facts gpu_facts(void);

#ifdef __cplusplus
}
#endif

#endif
