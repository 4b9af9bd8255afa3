// expect includes: grader/harness/grading.h, which a lab may not include
// The grader's own header.
#include "../../grader/harness/grading.h"
