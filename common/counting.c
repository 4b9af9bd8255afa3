#include "counting.h"

#include "cuda_check.h"

unsigned long long run_count_once(count_launcher *launch, unsigned int blocks,
                                  unsigned int threads_per_block, float *elapsed_ms)
{
    unsigned long long *d_count = NULL, count = 0;
    CUDA_CHECK(cudaMalloc((void **)&d_count, sizeof *d_count));
    CUDA_CHECK(cudaMemset(d_count, 0, sizeof *d_count));
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));

    CUDA_CHECK(cudaEventRecord(start, 0));
    launch(d_count, blocks, threads_per_block);
    CUDA_CHECK(cudaEventRecord(stop, 0));
    CUDA_CHECK(cudaEventSynchronize(stop));
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaEventElapsedTime(elapsed_ms, start, stop));
    CUDA_CHECK(cudaMemcpy(&count, d_count, sizeof count, cudaMemcpyDeviceToHost));

    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    CUDA_CHECK(cudaFree(d_count));
    return count;
}

void print_count_result(FILE *out, unsigned int blocks, unsigned int threads_per_block,
                        unsigned long long count, float elapsed_ms)
{
    unsigned long long threads = (unsigned long long)blocks * threads_per_block;
    fprintf(out, "total number of threads = %llu\n", threads);
    fprintf(out, "count = %llu\n", count);
    fprintf(out, "elapsed time = %f msec\n", elapsed_ms);
    if (count < threads)
        fprintf(out, "updates lost = %llu (%.4f%% of them)\n", threads - count,
                100.0 * (double)(threads - count) / (double)threads);
}
