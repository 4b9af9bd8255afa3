// expect pass:
// What a lab may do: print, allocate, copy, use math and templates, a static local, device
// helpers (nvcc's exit(1) stubs), inline PTX in device code, a compiler barrier, CUDA's runtime.
#include "lab5.h"
#include "cuda_check.h"
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

__device__ unsigned int rotate(unsigned int x)
{
    unsigned int r;
    asm("shf.l.wrap.b32 %0, %1, %1, 8;" : "=r"(r) : "r"(x));
    return r;
}
__device__ unsigned int device_counter;
__global__ void kernel(unsigned int *p) { *p = rotate(*p); atomicAdd(&device_counter, 1u); }

template <typename T> static T clamp_to(T x, T low, T high) { return std::min(std::max(x, low), high); }

static int blocks_for(uint64_t length)
{
    static const int limit = (int)std::sqrt((double)(1 << 20)) * 32;
    return clamp_to<int>((int)((length + 255) / 256), 1, limit);
}

void lab5_histogram_private_global(const char *d_text, uint64_t length, unsigned long long *d_histogram)
{
    char *copy = (char *)malloc(16);
    memset(copy, 0, 16);
    snprintf(copy, 16, "%d", blocks_for(length));
    fprintf(stderr, "%s\n", copy);
    free(copy);
    asm volatile("" ::: "memory");
    unsigned int *d_value;
    CUDA_CHECK(cudaMalloc(&d_value, sizeof *d_value));
    kernel<<<1, 1>>>(d_value);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaFree(d_value));
    (void)d_text;
    CUDA_CHECK(cudaMemset(d_histogram, 0, HISTOGRAM_BINS * sizeof *d_histogram));
}
void lab5_histogram_private_shared(const char *d_text, uint64_t length, unsigned long long *d_histogram)
{
    lab5_histogram_private_global(d_text, length, d_histogram);
}
