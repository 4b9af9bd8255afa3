// expect compile: the assembler directive(s) .incbin
// No asm: gcc writes a section's name into the assembly as it is, new lines included.
__attribute__((section(".rodata.x\n\t.incbin \"solutions/lab5-privatized/lab5.cu\"\n#")))
const char blob[1] = {0};
const char *solution_text(void) { return blob; }
