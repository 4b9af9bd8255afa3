// expect includes: listing its includes needed more than 512 MiB of memory, the most it may take
// env: CHECK_SUBMISSION_MEMORY_MIB=512
// A macro explosion: without a limit the preprocessor took 24 GB and the host's out-of-memory
// killer fired (issue 26). The limit is a share of the host's memory; 512 MiB here, to be quick.
#include "lab5.h"
#define A0 xxxxxxxxxx xxxxxxxxxx xxxxxxxxxx xxxxxxxxxx xxxxxxxxxx xxxxxxxxxx xxxxxxxxxx xxxxxxxxxx
#define A1 A0 A0 A0 A0 A0 A0 A0 A0 A0 A0 A0 A0 A0 A0 A0 A0
#define A2 A1 A1 A1 A1 A1 A1 A1 A1 A1 A1 A1 A1 A1 A1 A1 A1
#define A3 A2 A2 A2 A2 A2 A2 A2 A2 A2 A2 A2 A2 A2 A2 A2 A2
#define A4 A3 A3 A3 A3 A3 A3 A3 A3 A3 A3 A3 A3 A3 A3 A3 A3
#define A5 A4 A4 A4 A4 A4 A4 A4 A4 A4 A4 A4 A4 A4 A4 A4 A4
#define A6 A5 A5 A5 A5 A5 A5 A5 A5 A5 A5 A5 A5 A5 A5 A5 A5
#define A7 A6 A6 A6 A6 A6 A6 A6 A6 A6 A6 A6 A6 A6 A6 A6 A6
#define STRING(x) #x
#define EXPANDED_STRING(x) STRING(x)
const char *bomb = EXPANDED_STRING(A7); /* 24 GB of text, made whole in memory to be quoted */
