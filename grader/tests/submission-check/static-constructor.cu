// expect object: before main (a constructor), which a lab may not do
// A C++ object built before main: it runs in Criterion's runner, which writes the record.
#include <cstdio>
struct Early { Early() { puts("before the grader"); } };
static Early early;
