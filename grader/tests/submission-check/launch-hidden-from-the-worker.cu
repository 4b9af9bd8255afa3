// expect object: calls cudaLaunchKernelExC, which a lab may not call
// expect object: calls cudaLaunchCooperativeKernel, which a lab may not call
// Launches the worker does not see (it sees nvcc's and cudaLaunchKernel's): a kernel launched
// so would hide from the technique check.
#include "lab5.h"
#include "cuda_check.h"

__global__ void count_kernel(const char *text, uint64_t length, unsigned long long *histogram)
{
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < length && text[i] >= 'a' && text[i] <= 'z')
        atomicAdd(&histogram[(text[i] - 'a') / LETTERS_PER_BIN], 1ull);
}

void launch(const char *d_text, uint64_t length, unsigned long long *d_histogram)
{
    void *arguments[] = {(void *)&d_text, (void *)&length, (void *)&d_histogram};
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3((unsigned int)(length / 256 + 1));
    config.blockDim = dim3(256);
    CUDA_CHECK(cudaLaunchKernelExC(&config, (const void *)count_kernel, arguments));
    CUDA_CHECK(cudaLaunchCooperativeKernel((const void *)count_kernel, dim3(1), dim3(256),
                                           arguments, 0, 0));
}
