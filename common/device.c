#include "device.h"

#include "cuda_check.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What every GPU gives a block without opting in, and the least the kit's kernels need. */
#define SHARED_MEMORY_FLOOR_BYTES (48u << 10)
#define SHARED_MEMORY_LIMIT_VARIABLE "KIT_SHARED_MEMORY_PER_BLOCK"

/* cuda_check's hook (a worker's: grader/crossing/worker.c): the test process reports the message
 * as the failure of the call it made. */
void cuda_failure_observed(const char *message) __attribute__((weak));

/* What cudaGetDeviceCount says of this machine, with a one-line reason where no GPU is listed. */
enum gpu_listing { GPU_LISTED, GPU_ABSENT, GPU_UNLISTED };

static enum gpu_listing gpu_listing(char *reason, size_t reason_size)
{
    int count = 0;
    cudaError_t result = cudaGetDeviceCount(&count);
    if (result == cudaErrorInsufficientDriver || result == cudaErrorNoDevice) {
        snprintf(reason, reason_size, "no CUDA GPU with a recent enough driver on this machine "
                 "(cudaGetDeviceCount: %s)", cudaGetErrorName(result));
        return GPU_ABSENT;
    }
    if (result != cudaSuccess) {
        snprintf(reason, reason_size, "no usable CUDA GPU (cudaGetDeviceCount: %s)",
                 cudaGetErrorString(result));
        return GPU_UNLISTED;
    }
    if (count == 0) {
        snprintf(reason, reason_size, "no CUDA GPU on this machine");
        return GPU_ABSENT;
    }
    return GPU_LISTED;
}

bool gpu_absent(char *reason, size_t reason_size)
{
    return gpu_listing(reason, reason_size) == GPU_ABSENT;
}

bool gpu_available(char *reason, size_t reason_size)
{
    if (gpu_listing(reason, reason_size) != GPU_LISTED)
        return false;
    /* A device can be listed yet refuse a context (wrong driver, exclusive mode, broken node). */
    cudaError_t result = cudaFree(NULL);
    if (result != cudaSuccess) {
        snprintf(reason, reason_size, "the CUDA GPU cannot be used (%s)", cudaGetErrorString(result));
        return false;
    }
    return true;
}

int gpu_multiprocessors(void)
{
    int count = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, 0));
    return count;
}

struct gpu_facts gpu_facts(void)
{
    struct gpu_facts facts;
    memset(&facts, 0, sizeof facts);
    struct cudaDeviceProp properties;
    CUDA_CHECK(cudaGetDeviceProperties(&properties, 0));
    snprintf(facts.name, sizeof facts.name, "%s", properties.name);
    facts.major = properties.major;
    facts.minor = properties.minor;
    facts.multiprocessors = properties.multiProcessorCount;
    facts.l2_cache_bytes = properties.l2CacheSize;
    CUDA_CHECK(cudaMemGetInfo(&facts.free_memory_bytes, &facts.total_memory_bytes));
    facts.shared_memory_per_block = gpu_shared_memory_per_block();
    facts.shared_memory_limited = facts.shared_memory_per_block < properties.sharedMemPerBlockOptin;
    return facts;
}

bool shared_memory_limit_from(const char *text, size_t *bytes, char *reason, size_t reason_size)
{
    *bytes = 0;
    if (!text || !*text)
        return true;
    char *end = NULL;
    errno = 0;
    unsigned long long value = text[0] >= '0' && text[0] <= '9' ? strtoull(text, &end, 10) : 0;
    bool kilobytes = end && (*end == 'K' || *end == 'k');
    if (kilobytes)
        end++;
    if (!end || *end != '\0' || errno == ERANGE || value > (SIZE_MAX >> 10)) {
        snprintf(reason, reason_size, SHARED_MEMORY_LIMIT_VARIABLE "='%.40s' is not a size: give "
                 "48K, 64K or 99K (kilobytes), or a number of bytes", text);
        return false;
    }
    if (kilobytes)
        value <<= 10;
    if (value < SHARED_MEMORY_FLOOR_BYTES) {
        snprintf(reason, reason_size, SHARED_MEMORY_LIMIT_VARIABLE "='%.40s' is less than 48K, "
                 "what every GPU gives a block and the least the kit's kernels need", text);
        return false;
    }
    *bytes = (size_t)value;
    return true;
}

/* The limit KIT_SHARED_MEMORY_PER_BLOCK sets (0: none), read once. A value the kit does not take
 * ends the program: a layout sized from a guess would test nothing. */
static size_t shared_memory_limit(void)
{
    static bool known = false;
    static size_t limit = 0;
    if (!known) {
        char reason[160];
        if (!shared_memory_limit_from(getenv(SHARED_MEMORY_LIMIT_VARIABLE), &limit, reason,
                                      sizeof reason)) {
            fprintf(stderr, "%s\n", reason);
            if (cuda_failure_observed)
                cuda_failure_observed(reason);
            exit(EXIT_FAILURE);
        }
        known = true;
    }
    return limit;
}

size_t gpu_shared_memory_per_block(void)
{
    int device = 0, bytes = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    size_t limit = shared_memory_limit();
    return limit && limit < (size_t)bytes ? limit : (size_t)bytes;
}

/* The limit enforced, in the programs that run the code under test and the references (the
 * workers, make bench, make lessons: the Makefile links them with --wrap on these two calls,
 * SHARED_MEMORY_LIMIT_LDFLAGS): a kernel that asks for more than KIT_SHARED_MEMORY_PER_BLOCK
 * fails as it would on a GPU that has no more, and the opt-in maximum reads as that limit, so
 * that a layout not sized through gpu_shared_memory_per_block() shows. Elsewhere nothing calls
 * them: __real_ is weak, so that a program linked without the wrap needs nothing more. */
cudaError_t __real_cudaFuncSetAttribute(const void *function, enum cudaFuncAttribute attribute,
                                        int value) __attribute__((weak));
cudaError_t __real_cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attribute, int device)
    __attribute__((weak));
cudaError_t __wrap_cudaFuncSetAttribute(const void *function, enum cudaFuncAttribute attribute,
                                        int value);
cudaError_t __wrap_cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attribute, int device);

cudaError_t __wrap_cudaFuncSetAttribute(const void *function, enum cudaFuncAttribute attribute,
                                        int value)
{
    size_t limit = shared_memory_limit();
    if (limit && attribute == cudaFuncAttributeMaxDynamicSharedMemorySize && value > 0) {
        struct cudaFuncAttributes kernel;
        cudaError_t result = cudaFuncGetAttributes(&kernel, function);
        if (result != cudaSuccess)
            return result;
        if ((size_t)value + kernel.sharedSizeBytes > limit)
            return cudaErrorInvalidValue; /* what the GPU says of more than its maximum */
    }
    return __real_cudaFuncSetAttribute(function, attribute, value);
}

cudaError_t __wrap_cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attribute, int device)
{
    cudaError_t result = __real_cudaDeviceGetAttribute(value, attribute, device);
    size_t limit = shared_memory_limit();
    if (result == cudaSuccess && limit && attribute == cudaDevAttrMaxSharedMemoryPerBlockOptin &&
        (size_t)*value > limit)
        *value = (int)limit;
    return result;
}

void *cuda_driver_function(const char *name, int version)
{
    void *function = NULL;
    enum cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
    cudaError_t result = cudaGetDriverEntryPointByVersion(name, &function, (unsigned int)version,
                                                          cudaEnableDefault, &found);
#else
    /* Before CUDA 12.5 the runtime gives a function as it was at the runtime's own version: one
     * newer than the toolkit the kit was built with is not found, whatever the driver. */
    (void)version;
    cudaError_t result = cudaGetDriverEntryPoint(name, &function, cudaEnableDefault, &found);
#endif
    if (result != cudaSuccess || found != cudaDriverEntryPointSuccess) {
        (void)cudaGetLastError(); /* a missing function is an answer, not an error to keep */
        return NULL;
    }
    return function;
}
