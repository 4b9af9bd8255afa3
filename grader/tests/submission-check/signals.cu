// expect object: calls signal, which a lab may not call
// expect object: calls raise, which a lab may not call
// expect object: calls kill, which a lab may not call
// expect object: calls sigaction, which a lab may not call
// Signals to the grader's processes, or handlers that outlive a crash.
#include <csignal>
#include <unistd.h>
void quit(void)
{
    struct sigaction action = {};
    sigaction(SIGSEGV, &action, 0);
    signal(SIGABRT, SIG_IGN);
    raise(SIGTERM);
    kill(getppid(), SIGKILL);
}
