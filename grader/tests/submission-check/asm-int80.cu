// expect compile: has inline assembly in its host code
// The 32-bit system call gates.
void leave(void)
{
    asm volatile("int $0x80" : : "a"(1), "b"(0));
    asm volatile("sysenter");
}
