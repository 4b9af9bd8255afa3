// expect object: calls dlopen, which a lab may not call
// expect object: calls dlsym, which a lab may not call
// Any function by its name, whatever the list says.
#include <dlfcn.h>
void *find(void) { return dlsym(dlopen("libc.so.6", RTLD_NOW), "system"); }
