/* Second try, unbuffered, each step under an alarm of its own.
 * A: lock a child, stop it, ask its state (does GetState answer for a stopped process?).
 * B: continue it; it unlocks itself and launches nothing; parent asks state, then unlocks (what does an unlock of an unlocked process return?).
 * C: child locks itself (does a process lock itself?), then parent asks state and unlocks. */
#include <cuda.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
static const char *step = "";
static void on_alarm(int s) { (void)s; printf("%d: timed out in: %s\n", getpid(), step); _exit(3); }
#define STEP(text, seconds) do { step = text; alarm(seconds); } while (0)
int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    signal(SIGALRM, on_alarm);
    int to_child[2], to_parent[2];
    if (pipe(to_child) || pipe(to_parent)) return 1;
    pid_t child = fork();
    if (child == 0) {
        CUdevice d; CUcontext c; char go;
        if (cuInit(0) || cuDeviceGet(&d, 0) || cuDevicePrimaryCtxRetain(&c, d) || cuCtxSetCurrent(c)) _exit(2);
        CUdeviceptr m; cuMemAlloc(&m, 1 << 20);
        write(to_parent[1], "r", 1);
        read(to_child[0], &go, 1);
        CUcheckpointUnlockArgs ua; memset(&ua, 0, sizeof ua);
        STEP("child self-unlock", 5);
        printf("child: unlock itself -> %d\n", cuCheckpointProcessUnlock(getpid(), &ua));
        STEP("child memset", 5);
        printf("child: memset -> %d sync -> %d\n", cuMemsetD8(m, 1, 1 << 20), cuCtxSynchronize());
        write(to_parent[1], "u", 1);
        read(to_child[0], &go, 1);
        CUcheckpointLockArgs la; memset(&la, 0, sizeof la); la.timeoutMs = 3000;
        STEP("child self-lock", 8);
        printf("child: lock itself -> %d\n", cuCheckpointProcessLock(getpid(), &la));
        CUprocessState st = 9;
        STEP("child own state", 5);
        printf("child: own state -> %d (%d)\n", cuCheckpointProcessGetState(getpid(), &st), st);
        write(to_parent[1], "l", 1);
        for (;;) pause();
    }
    char r; read(to_parent[0], &r, 1);
    cuInit(0);
    CUcheckpointLockArgs la; memset(&la, 0, sizeof la); la.timeoutMs = 5000;
    CUcheckpointUnlockArgs ua; memset(&ua, 0, sizeof ua);
    CUprocessState st = 9;
    STEP("parent lock", 10);
    printf("parent: lock -> %d\n", cuCheckpointProcessLock(child, &la));
    int status;
    kill(child, SIGSTOP); waitpid(child, &status, WUNTRACED);
    STEP("parent state of stopped locked child", 5);
    printf("parent: stopped child's state -> %d (%d)\n", cuCheckpointProcessGetState(child, &st), st);
    alarm(0);
    kill(child, SIGCONT);
    write(to_child[1], "g", 1);
    read(to_parent[0], &r, 1);
    STEP("parent state after self-unlock", 5);
    printf("parent: state after self-unlock -> %d (%d)\n", cuCheckpointProcessGetState(child, &st), st);
    STEP("parent unlock of unlocked", 5);
    printf("parent: unlock of an unlocked child -> %d\n", cuCheckpointProcessUnlock(child, &ua));
    kill(child, SIGSTOP); waitpid(child, &status, WUNTRACED);
    STEP("parent state of stopped running child", 5);
    printf("parent: stopped running child's state -> %d (%d)\n", cuCheckpointProcessGetState(child, &st), st);
    STEP("parent lock of stopped child", 8);
    printf("parent: lock of a stopped child (timeout 2 s) -> ");
    la.timeoutMs = 2000;
    printf("%d\n", cuCheckpointProcessLock(child, &la));
    alarm(0);
    kill(child, SIGCONT);
    STEP("parent state after continue", 5);
    printf("parent: state after continue -> %d (%d)\n", cuCheckpointProcessGetState(child, &st), st);
    write(to_child[1], "g", 1);
    STEP("wait for self-lock", 12);
    read(to_parent[0], &r, 1);
    printf("parent: state after self-lock -> %d (%d)\n", cuCheckpointProcessGetState(child, &st), st);
    printf("parent: unlock -> %d\n", cuCheckpointProcessUnlock(child, &ua));
    kill(child, SIGKILL); waitpid(child, &status, 0);
    printf("done\n");
    return 0;
}
