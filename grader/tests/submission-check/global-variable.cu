// expect object: defines counter for the whole program, which a lab may not (make it static)
// A C++ variable's name is not mangled: a global one can stand in for a library's.
int counter = 0;
