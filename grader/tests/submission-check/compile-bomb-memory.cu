// expect compile: compiling it needed more than 256 MiB of memory, the most it may take
// env: CHECK_SUBMISSION_MEMORY_MIB=256
// What preprocesses small (1M tokens, under 128 MiB) but compiles big: the compile is limited
// too, and says which limit it hit. (The skeleton compiles within 256 MiB.)
#include "lab5.h"
#define A0 1, 1, 1, 1, 1, 1, 1, 1,
#define A1 A0 A0 A0 A0 A0 A0 A0 A0 A0 A0 A0 A0 A0 A0 A0 A0
#define A2 A1 A1 A1 A1 A1 A1 A1 A1 A1 A1 A1 A1 A1 A1 A1 A1
#define A3 A2 A2 A2 A2 A2 A2 A2 A2 A2 A2 A2 A2 A2 A2 A2 A2
#define A4 A3 A3 A3 A3 A3 A3 A3 A3 A3 A3 A3 A3 A3 A3 A3 A3
__device__ int table[] = {A4 A4};
