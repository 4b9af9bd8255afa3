#include "bandwidth.h"

#include "cuda_check.h"

void run_device_copy(void *device_copy)
{
    const struct device_copy *copy = device_copy;
    CUDA_CHECK(cudaMemcpyAsync(copy->d_destination, copy->d_source, copy->bytes,
                               cudaMemcpyDeviceToDevice, 0));
}

double gigabytes_per_second(uint64_t bytes, double ms)
{
    return ms > 0 ? (double)bytes / (ms * 1e6) : 0.0;
}

double percent_of_copy_bandwidth(uint64_t histogram_bytes, double histogram_ms,
                                 uint64_t copy_bytes, double copy_ms)
{
    double copy_rate = gigabytes_per_second(2 * copy_bytes, copy_ms);
    return copy_rate > 0 ? 100.0 * gigabytes_per_second(histogram_bytes, histogram_ms) / copy_rate
                         : 0.0;
}
