// expect includes: solutions/lab4-text-histogram/lab4.cu, which a lab may not include
// never: reference solution
// A solution, from where ./grade --file builds a copy (build/file/<hash>/source/lab5.cu).
#include "../../../../solutions/lab4-text-histogram/lab4.cu"
