// expect object: calls getenv, which a lab may not call
// expect object: calls environ, which a lab may not call
// expect object: calls secure_getenv, which a lab may not call
// Finding the grader's record (GRADE_RECORDS) in the environment.
#include <cstdlib>
#include <cstdio>
extern char **environ;
void find(void)
{
    printf("%s %s %s\n", getenv("GRADE_RECORDS"), environ[0], secure_getenv("HOME"));
}
