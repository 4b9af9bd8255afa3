// expect object: calls cudaGraphDebugDotPrint, which a lab may not call
// A CUDA runtime call that writes a file at any path (the grader's record, say).
#include <cuda_runtime.h>
void draw(const char *path)
{
    cudaGraph_t graph;
    cudaGraphCreate(&graph, 0);
    cudaGraphDebugDotPrint(graph, path, 0);
}
