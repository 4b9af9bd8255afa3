// expect compile: has inline assembly in its host code, which a lab may not have
// expect compile: the assembler directive(s) .include
// never: root:x:0
// The assembler reads the file, and prints its lines in its errors.
asm(".include \"/etc/passwd\"");
