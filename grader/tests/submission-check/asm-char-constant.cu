// expect compile: the assembler directive(s) .incbin
// A quote the assembler reads as a character constant ('"), not as the start of a string.
asm(".pushsection .rodata\n.byte '\" ; .incbin \"solutions/lab5-privatized/lab5.cu\"\n.popsection");
