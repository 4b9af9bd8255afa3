// expect compile: has inline assembly in its host code
// A system call that a disassembly does not show: a jump into the immediate of a mov, whose
// bytes are the syscall instruction (0f 05). Only refusing host asm altogether stops it.
long hidden(long number, long a, long b, long c)
{
    long result;
    asm volatile(".byte 0xeb, 0x01\n\t.byte 0xb8, 0x0f, 0x05, 0x90, 0x90"
                 : "=a"(result) : "a"(number), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
    return result;
}
