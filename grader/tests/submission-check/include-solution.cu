// expect includes: solutions/lab4-text-histogram/lab4.cu, which a lab may not include
// never: reference solution
// A solution, through the lab's own include folder (-Ilabs/lab5-privatized).
#include "../../solutions/lab4-text-histogram/lab4.cu"
