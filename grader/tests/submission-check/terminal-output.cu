// expect pass:
// A student's debugging output, in every form the compiler may turn it into: printf of a plain
// line becomes puts, of one character putchar, and fprintf(stderr, "text") becomes fwrite, which
// the student never wrote (an instructor's trial, 2026-11-27: it failed the whole lab as "calls
// fwrite"). Only stdout and stderr can be reached: there is no fopen.
#include <cstdio>
void debug(int value, const char *name)
{
    printf("debug\n");
    printf("x");
    printf("%s\n", name);
    fprintf(stderr, "debug: sequential called\n");
    fprintf(stderr, "%s", name);
    fprintf(stderr, "value %d\n", value);
    fputs("done\n", stdout);
    fflush(stdout);
}
