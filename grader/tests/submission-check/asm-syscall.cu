// expect compile: has inline assembly in its host code
// A system call straight from host code: write(1, ...), no function called.
void say(void)
{
    long result;
    asm volatile("syscall" : "=a"(result) : "a"(1L), "D"(1L), "S"("x\n"), "d"(2L) : "rcx", "r11", "memory");
}
