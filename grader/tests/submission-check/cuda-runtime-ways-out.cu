// expect object: calls cudaLogsDumpToFile, which a lab may not call
// expect object: calls cudaGetExportTable, which a lab may not call
// expect object: calls cudaIpcOpenMemHandle, which a lab may not call
// expect object: calls cudaMemPoolExportToShareableHandle, which a lab may not call
// The CUDA runtime's own ways out: a file it writes, its internal tables, other processes'
// memory, file descriptors.
#include <cuda_runtime.h>
void out(cudaMemPool_t pool, cudaIpcMemHandle_t handle)
{
    cudaLogsDumpToFile(0, "records", 0);
    const void *table;
    cudaGetExportTable(&table, 0);
    void *memory;
    cudaIpcOpenMemHandle(&memory, handle, cudaIpcMemLazyEnablePeerAccess);
    int fd;
    cudaMemPoolExportToShareableHandle(&fd, pool, cudaMemHandleTypePosixFileDescriptor, 0);
}
