#include "device.h"

#include "cuda_check.h"

#include <stdio.h>
#include <string.h>

bool gpu_available(char *reason, size_t reason_size)
{
    int count = 0;
    cudaError_t result = cudaGetDeviceCount(&count);
    if (result == cudaErrorInsufficientDriver || result == cudaErrorNoDevice) {
        snprintf(reason, reason_size, "no CUDA GPU with a recent enough driver on this machine "
                 "(cudaGetDeviceCount: %s)", cudaGetErrorName(result));
        return false;
    }
    if (result != cudaSuccess) {
        snprintf(reason, reason_size, "no usable CUDA GPU (cudaGetDeviceCount: %s)",
                 cudaGetErrorString(result));
        return false;
    }
    if (count == 0) {
        snprintf(reason, reason_size, "no CUDA GPU on this machine");
        return false;
    }
    /* A device can be listed yet refuse a context (wrong driver, exclusive mode, broken node). */
    result = cudaFree(NULL);
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
    return facts;
}
