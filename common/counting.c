#include "counting.h"

#include "cuda_check.h"

#include <stdlib.h>

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

int launch_shape_from_arguments(int argc, char **argv, unsigned int *blocks,
                                unsigned int *threads_per_block)
{
    *blocks = SLIDES_DEMO_BLOCKS;
    *threads_per_block = SLIDES_DEMO_THREADS;
    if (argc == 1)
        return 0;
    char *end_blocks = NULL, *end_threads = NULL;
    unsigned long b = argc == 3 ? strtoul(argv[1], &end_blocks, 10) : 0;
    unsigned long t = argc == 3 ? strtoul(argv[2], &end_threads, 10) : 0;
    if (argc != 3 || *end_blocks || *end_threads || b < 1 || b > 0x7FFFFFFFul || t < 1 ||
        t > 1024) {
        fprintf(stderr, "usage: %s [BLOCKS THREADS_PER_BLOCK]  (default %u %u; 1 to 1024 threads a "
                        "block)\n",
                argv[0], SLIDES_DEMO_BLOCKS, SLIDES_DEMO_THREADS);
        return 2;
    }
    *blocks = (unsigned int)b;
    *threads_per_block = (unsigned int)t;
    return 0;
}
