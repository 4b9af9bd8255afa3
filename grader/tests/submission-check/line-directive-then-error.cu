// expect includes: does not preprocess
// never: root:x:0
// #line, then an error that stops -M: its errors are shown without the lines they quote.
#line 1 "/etc/passwd"
#error stop here
