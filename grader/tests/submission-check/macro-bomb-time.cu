// expect includes: listing its includes took more than 2 s, the most it may take here
// env: CHECK_SUBMISSION_SECONDS=2
// env: CHECK_SUBMISSION_MEMORY_MIB=8192
// The same explosion, stopped by the time limit first (2 s here, to be quick; the memory limit
// high enough that a fast machine does not reach it first).
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
