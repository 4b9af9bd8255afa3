// expect includes: includes /etc/passwd, which a lab may not include
// never: root:x:0
// A file of the machine: the compiler would print its lines in its errors.
#include "/etc/passwd"
