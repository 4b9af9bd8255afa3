// expect includes: names a file '/usr/local/cuda/include/$(shell\x0btouch\x0bbuild/pwned)' (an #include or a #line), which a lab may not
// A #line whose name make runs: nvcc wrote it as it is into the dependency file of the compile,
// every later make read that file, and $(shell ...) ran (words split at the vertical tabs). Any name
// under CUDA's include folder passed then, whether there or not (issue 26).
#include "lab5.h"
#line 1 "/usr/local/cuda/include/$(shelltouchbuild/pwned)"
static int nothing;
