// expect includes: common/reference.c, which a lab may not include
// common/'s code rather than its headers (the CPU reference).
#include "../../common/reference.c"
