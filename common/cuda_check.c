#include "cuda_check.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LAUNCH_HINT                                                                            \
    "the launch asked for an impossible grid: 0 blocks (an empty input?), more than 1024 "     \
    "threads a block, or more shared memory than a block may have"

/* A hint at the usual cause of an error, or NULL where there is no useful one. */
static const char *cuda_error_hint(cudaError_t error, const char *call)
{
    // CUDA 13 reports some impossible launches (2048 threads a block) as an invalid value.
    bool launch = strcmp(call, CUDA_LAUNCH_CALL) == 0;
    if (launch && (error == cudaErrorInvalidValue || error == cudaErrorInvalidConfiguration))
        return LAUNCH_HINT;
    switch (error) {
    case cudaErrorIllegalAddress:
    case cudaErrorInvalidAddressSpace:
        return "a kernel read or wrote outside its buffers: check the bounds test (i < length) "
               "and that every index into the histogram is one of its bins (0 to bins - 1)";
    case cudaErrorInvalidConfiguration:
        return LAUNCH_HINT;
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

/* Defined where a failure must go further than this process's stderr: a grader passes it on to
 * its results (grader/harness/record_hooks.c), the worker that runs code under test to the test
 * process that asked (grader/crossing/worker.c). The demo programs do not define it. */
void cuda_failure_observed(const char *message) __attribute__((weak));

void cuda_check(cudaError_t result, const char *call, const char *file, int line)
{
    if (result == cudaSuccess)
        return;
    char message[1024];
    const char *hint = cuda_error_hint(result, call);
    snprintf(message, sizeof message, "%s:%d: %s failed: %s (%s)%s%s", file, line, call,
             cudaGetErrorString(result), cudaGetErrorName(result), hint ? "\n  hint: " : "",
             hint ? hint : "");
    fprintf(stderr, "%s\n", message);
    fflush(stderr);
    if (cuda_failure_observed)
        cuda_failure_observed(message);
    exit(EXIT_FAILURE);
}
