// expect includes: names a file '/usr/include/stdio.h\x0a/usr/include/stdlib.h' (an #include or a #line)
// A name with a newline: two names of real headers to whoever reads it a line at a time.
#include "lab5.h"
#line 1 "/usr/include/stdio.h\n/usr/include/stdlib.h"
static int nothing;
