// expect compile: the assembler directive(s) .include
// never: root:x:0
// No asm statement: an asm label is written as it is too (and gas directives ignore case).
extern "C" int quiet(void) __asm__("quiet\n\t.INCLUDE \"/etc/passwd\"\n#");
int quiet(void) { return 1; }
