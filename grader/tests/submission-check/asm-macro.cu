// expect compile: the assembler directive(s) .macro
// An assembler macro spells .incbin without writing it.
__attribute__((section(".rodata.y\n.macro get a\n.inc\\a \"/etc/passwd\"\n.endm\nget bin\n#")))
const char blob[1] = {0};
const char *read_it(void) { return blob; }
