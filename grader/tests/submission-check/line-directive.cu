// expect includes: includes /etc/passwd, which a lab may not include
// never: root:x:0
// gcc quotes the line of the file a #line names under a warning (an unused parameter here).
#line 1 "/etc/passwd"
int quote(int unused) { return 0; }
