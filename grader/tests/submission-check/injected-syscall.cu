// expect object: has a system call (syscall) in its host code
// expect object: has a system call (int $0x80) in its host code
// expect object: has a system call (sysenter) in its host code
// No asm and no directive: instructions through a section's name, for the object check.
__attribute__((section(".text.a\n\tsyscall\n\tint $0x80\n\tsysenter\n#"))) int gate(void) { return 0; }
