// expect object: defines _Znwm for the whole program
// operator new, for every C++ caller in the program.
#include <cstdlib>
#include <new>
void *operator new(std::size_t size) { return malloc(size); }
