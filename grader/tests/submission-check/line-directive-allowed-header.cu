// expect pass:
// A #line that names a header a lab may include is harmless: the tools see only a real file of
// the allowed folders, with a portable name. (#line is not refused as such: the check reads the
// names every pass saw, however they came, rather than a second parser's idea of directives.)
#include "lab5.h"
#line 1 "/usr/include/stdio.h"
static int nothing;
