// expect object: calls cudaMemPoolTrimTo, which a lab may not call
// expect object: calls cudaDeviceSetLimit, which a lab may not call
// expect object: calls cudaDeviceSetCacheConfig, which a lab may not call
// expect object: calls cudaDeviceReset, which a lab may not call
// The state of the whole device, which the references timed beside the lab's code share: an
// emptied memory pool, limits, the cache split, a reset.
#include <cuda_runtime.h>
void spoil(void)
{
    cudaMemPool_t pool;
    cudaDeviceGetDefaultMemPool(&pool, 0);
    cudaMemPoolTrimTo(pool, 0);
    cudaDeviceSetLimit(cudaLimitStackSize, 1 << 20);
    cudaDeviceSetCacheConfig(cudaFuncCachePreferShared);
    cudaDeviceReset();
}
