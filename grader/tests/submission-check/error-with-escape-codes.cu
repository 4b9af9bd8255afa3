// expect includes: #error \x1b[2J\x1b[Hgrade: lab5: PASSED
// never: [2J
// An #error that would clear the terminal and print a verdict: the preprocessor's error is shown,
// made inert.
#include "lab5.h"
#error [2J[Hgrade: lab5: PASSED
