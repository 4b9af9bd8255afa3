#include "l2_cache.h"

#include "cuda_check.h"

static __global__ void read_everything(const unsigned int *scratch, size_t words,
                                       unsigned int *sink)
{
    unsigned int sum = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < words;
         i += (size_t)gridDim.x * blockDim.x)
        sum += scratch[i];
    if (sum == 1u) /* the scratch is all zeros: never true */
        *sink = sum;
}

struct l2_cleaner l2_cleaner_create(void)
{
    int device = 0, l2_bytes = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
    struct l2_cleaner cleaner = {NULL, 2 * (size_t)l2_bytes / sizeof(unsigned int), NULL};
    unsigned int *scratch = NULL;
    CUDA_CHECK(cudaMalloc((void **)&scratch, cleaner.words * sizeof *scratch));
    CUDA_CHECK(cudaMemset(scratch, 0, cleaner.words * sizeof *scratch));
    CUDA_CHECK(cudaMalloc((void **)&cleaner.d_sink, sizeof *cleaner.d_sink));
    cleaner.d_scratch = scratch;
    return cleaner;
}

void l2_cleaner_destroy(struct l2_cleaner *cleaner)
{
    CUDA_CHECK(cudaFree((void *)cleaner->d_scratch));
    CUDA_CHECK(cudaFree(cleaner->d_sink));
    cleaner->d_scratch = NULL;
    cleaner->d_sink = NULL;
}

void leave_l2_clean(const struct l2_cleaner *cleaner)
{
    int device = 0, multiprocessors = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
    read_everything<<<4 * multiprocessors, 256>>>(cleaner->d_scratch, cleaner->words,
                                                  cleaner->d_sink);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
}
