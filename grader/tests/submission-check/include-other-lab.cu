// expect includes: labs/lab4-text-histogram/lab4.h, which a lab may not include
// Another lab's header (only its own lab's).
#include "../lab4-text-histogram/lab4.h"
