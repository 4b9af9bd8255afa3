// expect object: calls cudaLibraryLoadFromFile, which a lab may not call
// expect object: calls cuInit, which a lab may not call
// expect object: calls cuLibraryLoadFromFile, which a lab may not call
// Loading device code from a file (a solution's), and the driver API.
#include <cuda_runtime.h>
extern "C" int cuInit(unsigned int);
extern "C" int cuLibraryLoadFromFile(void **, const char *, void *, void **, unsigned int, void *, void **, unsigned int);
void load(void)
{
    cudaLibrary_t library;
    cudaLibraryLoadFromFile(&library, "build/reference/lab5-privatized.o", 0, 0, 0, 0, 0, 0);
    void *other;
    cuInit(0);
    cuLibraryLoadFromFile(&other, "x", 0, 0, 0, 0, 0, 0);
}
