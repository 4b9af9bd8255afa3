// A first CUDA program, to read before lab 1 (README.md, "A CUDA primer"). It is not part of
// any lab: every thread writes the square of its index into an array in GPU memory; the host
// times the kernel with events, copies the array back and checks it.
// Build and run:   make lab1 && build/student/lab1-race/primer
#include "cuda_check.h"

#include <stdio.h>
#include <stdlib.h>

// Runs on the GPU, once in every thread of the grid.
__global__ void squares_kernel(unsigned long long *squares, unsigned int count)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) // the grid is rounded up to whole blocks: the last threads have no element
        squares[i] = (unsigned long long)i * i;
}

int main(void)
{
    const unsigned int count = 1000000;
    const unsigned int threads_per_block = 256;
    const unsigned int blocks = (count + threads_per_block - 1) / threads_per_block;
    const size_t bytes = count * sizeof(unsigned long long);

    unsigned long long *squares = (unsigned long long *)malloc(bytes);
    if (squares == NULL) {
        fprintf(stderr, "out of host memory\n");
        return EXIT_FAILURE;
    }
    // The kernel can only reach GPU memory; cudaMalloc writes the new address into d_squares.
    unsigned long long *d_squares = NULL;
    CUDA_CHECK(cudaMalloc((void **)&d_squares, bytes));

    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));

    // The launch returns at once; the events are timestamps the GPU writes in order with the
    // kernel, so the time between them is the kernel's, not the host's.
    CUDA_CHECK(cudaEventRecord(start, 0));
    squares_kernel<<<blocks, threads_per_block>>>(d_squares, count);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaEventRecord(stop, 0));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float elapsed_ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&elapsed_ms, start, stop));

    CUDA_CHECK(cudaMemcpy(squares, d_squares, bytes, cudaMemcpyDeviceToHost));

    unsigned int wrong = 0;
    for (unsigned int i = 0; i < count; i++)
        if (squares[i] != (unsigned long long)i * i)
            wrong++;
    printf("%u blocks of %u threads wrote the squares of 0 .. %u: %u wrong, kernel %.3f ms\n",
           blocks, threads_per_block, count - 1, wrong, elapsed_ms);

    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    CUDA_CHECK(cudaFree(d_squares));
    free(squares);
    return wrong == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
