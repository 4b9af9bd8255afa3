// expect includes: names a file '/usr/include/a$b.h'
// expect includes: names a file '/usr/include/a#b.h'
// expect includes: names a file '/usr/include/a:b.h'
// expect includes: names a file '/usr/include/a b.h'
// expect includes: names a file '/usr/include/a\x09b.h'
// expect includes: names a file '/usr/include/a b.h'
// expect includes: names a file '/usr/include/a\u0085b.h'
// expect includes: names a file '/usr/include/a\x1b[2Jb.h'
// What make, a shell or a terminal reads in a name: $, #, :, a space, a tab, Unicode's em space
// and next line (C1), an escape code. Each is refused, and shown inert.
#include "lab5.h"
#line 1 "/usr/include/a$b.h"
#line 2 "/usr/include/a#b.h"
#line 3 "/usr/include/a:b.h"
#line 4 "/usr/include/a b.h"
#line 5 "/usr/include/a\tb.h"
#line 6 "/usr/include/a b.h"
#line 7 "/usr/include/ab.h"
#line 8 "/usr/include/a[2Jb.h"
static int nothing;
