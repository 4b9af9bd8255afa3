// expect pass:
// never: [2J
// A #warning (and the compiler's own warnings, which quote the source) that would clear the
// terminal: the compile's messages are shown made inert.
#include "lab5.h"
#warning [2J[Hgrade: lab5: PASSED
static int nothing; /* [2J */
