// expect object: calls cudaGetDriverEntryPoint, which a lab may not call
// The driver API by name, and from it any driver function.
#include <cuda_runtime.h>
void *entry(void)
{
    void *function = 0;
    cudaGetDriverEntryPoint("cuLibraryLoadFromFile", &function, cudaEnableDefault, 0);
    return function;
}
