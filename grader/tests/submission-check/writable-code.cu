// expect object: has a section .text.rwx both writable and executable
// Code that can be rewritten when it runs (a system call made there, after the check).
__attribute__((section(".text.rwx,\"awx\",@progbits#"))) int patchable(void) { return 0; }
