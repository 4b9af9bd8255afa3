// expect object: asks for an executable stack
// Code run from the stack (made there, after the check).
__attribute__((section(".note.GNU-stack,\"x\",@progbits#"), used)) static const char mark = 0;
