/* What the kit needs to know about the GPU: whether there is one, its name and size, and the
 * shared memory a block of its kernels may have. */
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
    size_t shared_memory_per_block; /* gpu_shared_memory_per_block() */
    bool shared_memory_limited;     /* lower than the GPU's own, by KIT_SHARED_MEMORY_PER_BLOCK */
};

/* True when device 0 can run kernels; otherwise false with a one-line reason. Never exits, so a
 * test without a GPU can skip instead of fail. */
bool gpu_available(char *reason, size_t reason_size);
/* True, with the reason, when this machine has no CUDA GPU at all (none listed, or a driver
 * too old for the runtime): not a GPU that fails, which gpu_available also reports. */
bool gpu_absent(char *reason, size_t reason_size);

/* The multiprocessor count of device 0: cheap enough to ask before every launch that sizes
 * its grid by it (exits with a message when there is no device). */
int gpu_multiprocessors(void);

/* Facts about device 0 (exits with a message when there is none). */
struct gpu_facts gpu_facts(void);

/* The most shared memory, static and dynamic together, that a block of a kernel may have on the
 * current device, in bytes: what a kernel may opt in to (cudaDevAttrMaxSharedMemoryPerBlockOptin:
 * 64 KB on compute capability 7.5, 99 KB on 8.6 and 8.9, 163 KB on 8.0, 227 KB on 9.0), or less
 * where the environment variable KIT_SHARED_MEMORY_PER_BLOCK says (48K, 64K, 99K: a block's 48 KB
 * without opting in, a T4's, an RTX 30's or 40's), so that a larger GPU runs the layouts the kit
 * picks for a smaller one. Every kernel of the kit that sizes its shared memory asks this. A
 * value of KIT_SHARED_MEMORY_PER_BLOCK the kit does not take ends the program with one line. */
size_t gpu_shared_memory_per_block(void);

/* KIT_SHARED_MEMORY_PER_BLOCK's value read: "" or NULL is no limit (*bytes = 0); "48K" or
 * "49152" is 49152 bytes. False, with the reason on one line, for anything else or less than
 * 48K (what every GPU gives a block without opting in, and what the kit's kernels need). */
bool shared_memory_limit_from(const char *text, size_t *bytes, char *reason, size_t reason_size);

/* A function of the CUDA driver (cuKernelGetName, say), asked for through the runtime as it was
 * at the driver's version `version` (12030 for 12.3): NULL where the driver is older or has none.
 * The graders link no driver library (a machine without a GPU lacks it), and the runtime's way to
 * ask changed in CUDA 12.5: this works with either. */
void *cuda_driver_function(const char *name, int version);

#ifdef __cplusplus
}
#endif

#endif
