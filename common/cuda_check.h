/* Every CUDA call in the kit goes through CUDA_CHECK, so a failure names the call, the place
 * and CUDA's own explanation instead of surfacing later as a wrong answer. */
#ifndef COMMON_CUDA_CHECK_H
#define COMMON_CUDA_CHECK_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Prints "file:line: call failed: <CUDA's message> (<error name>)", a hint for the errors
 * students meet most, and exits. Exiting is deliberate: after a fault inside a kernel the
 * CUDA context is unusable, and every later call would only report the same error again. */
void cuda_check(cudaError_t result, const char *call, const char *file, int line);

#define CUDA_CHECK(call) cuda_check((call), #call, __FILE__, __LINE__)

/* A launch reports a bad configuration only through cudaGetLastError; faults inside the
 * kernel surface at the next call that waits for it (cudaMemcpy, cudaDeviceSynchronize). */
#define CUDA_LAUNCH_CALL "kernel launch"
#define CUDA_CHECK_LAUNCH() cuda_check(cudaGetLastError(), CUDA_LAUNCH_CALL, __FILE__, __LINE__)

#ifdef __cplusplus
}
#endif

#endif
