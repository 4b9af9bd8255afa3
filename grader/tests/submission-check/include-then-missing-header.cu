// expect includes: includes /etc/passwd, which a lab may not include
// never: root:x:0
// The preprocessor stops at the missing header, and -M lists nothing: gcc -H still names it.
#include "/etc/passwd"
#include "no-such-header.h"
