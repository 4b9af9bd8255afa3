// expect includes: names /usr/local/cuda/include/no-such-header.h (an #include or a #line), which is no file here
// A name in an allowed folder is allowed only when it is a file there.
#include "lab5.h"
#line 1 "/usr/local/cuda/include/no-such-header.h"
static int nothing;
