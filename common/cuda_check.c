#include "cuda_check.h"

#include <stdio.h>
#include <stdlib.h>

const char *cuda_error_hint(cudaError_t error)
{
    switch (error) {
    case cudaErrorIllegalAddress:
    case cudaErrorInvalidAddressSpace:
        return "a kernel read or wrote outside its buffers: check the bounds test (i < length) "
               "and that every index into the histogram is between 0 and 6";
    case cudaErrorInvalidConfiguration:
        return "the launch asked for an impossible grid: 0 blocks (an empty input?), more than "
               "1024 threads a block, or more shared memory than a block may have";
    case cudaErrorLaunchTimeout:
        return "the kernel ran too long: look for a loop that never ends";
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
        return "this machine has no usable CUDA GPU; run on a machine with one";
    case cudaErrorMemoryAllocation:
        return "the GPU ran out of memory: free what you allocate, and check the size you ask for";
    case cudaErrorInvalidValue:
        return "an argument is wrong: a NULL or host pointer where device memory is needed, or a "
               "size larger than the buffer";
    case cudaErrorMisalignedAddress:
        return "a wide load or an atomic used an address that is not a multiple of its size";
    default:
        return NULL;
    }
}

void cuda_check(cudaError_t result, const char *call, const char *file, int line)
{
    if (result == cudaSuccess)
        return;
    fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", file, line, call, cudaGetErrorString(result),
            cudaGetErrorName(result));
    const char *hint = cuda_error_hint(result);
    if (hint)
        fprintf(stderr, "  hint: %s\n", hint);
    fflush(stderr);
    exit(EXIT_FAILURE);
}
