// expect pass:
// A kernel launched through cudaLaunchKernel, as CUDA 12's nvcc compiles every <<<...>>>: the
// worker sees this launch too (grader/crossing/worker.c), so the technique check does.
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
    CUDA_CHECK(cudaLaunchKernel((const void *)count_kernel, dim3((unsigned int)(length / 256 + 1)),
                                dim3(256), arguments, 0, 0));
}
