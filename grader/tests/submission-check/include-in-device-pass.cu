// expect includes: includes /etc/passwd, which a lab may not include
// never: root:x:0
// Only the device passes read it: -M lists every pass.
#ifdef __CUDA_ARCH__
#include "/etc/passwd"
#endif
