// expect includes: includes /proc/
// never: PATH=
// The grader's environment.
#include "/proc/self/environ"
