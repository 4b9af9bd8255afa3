/* Can a process that another has locked with cuCheckpointProcessLock unlock itself?
 * The parent forks a child that initializes CUDA, then locks the child; the child, told by a
 * pipe, calls cuCheckpointProcessUnlock(getpid()) (alarm after 5 s) and then a CUDA call, and
 * says what happened. Build: gcc self_unlock.c -I/usr/local/cuda/include -L/usr/local/cuda/lib64/stubs -lcuda */
#include <cuda.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void on_alarm(int signal) { (void)signal; fprintf(stderr, "child: timed out (blocked)\n"); _exit(3); }

int main(void)
{
    int to_child[2], to_parent[2];
    if (pipe(to_child) || pipe(to_parent)) return 1;
    pid_t child = fork();
    if (child == 0) {
        CUdevice device; CUcontext context; char go;
        if (cuInit(0) || cuDeviceGet(&device, 0) || cuDevicePrimaryCtxRetain(&context, device) || cuCtxSetCurrent(context)) { fprintf(stderr, "child: no CUDA\n"); _exit(2); }
        CUdeviceptr memory; cuMemAlloc(&memory, 1 << 20);
        write(to_parent[1], "r", 1);
        read(to_child[0], &go, 1); /* locked by now */
        signal(SIGALRM, on_alarm); alarm(5);
        CUcheckpointUnlockArgs unlock_args; memset(&unlock_args, 0, sizeof unlock_args);
        CUresult unlocked = cuCheckpointProcessUnlock(getpid(), &unlock_args);
        CUprocessState state = 9; CUresult got = cuCheckpointProcessGetState(getpid(), &state);
        CUresult used = cuMemsetD8(memory, 1, 1 << 20);
        CUresult synced = cuCtxSynchronize();
        printf("child: unlock itself -> %d; state -> %d (%d); memset -> %d; sync -> %d\n", unlocked, got, state, used, synced);
        fflush(stdout);
        _exit(0);
    }
    char ready; read(to_parent[0], &ready, 1);
    if (cuInit(0)) { fprintf(stderr, "parent: no CUDA\n"); return 1; }
    CUcheckpointLockArgs lock_args; memset(&lock_args, 0, sizeof lock_args); lock_args.timeoutMs = 5000;
    CUresult locked = cuCheckpointProcessLock(child, &lock_args);
    CUprocessState state = 9; CUresult got = cuCheckpointProcessGetState(child, &state);
    printf("parent: lock child -> %d; its state -> %d (%d)\n", locked, got, state);
    fflush(stdout);
    write(to_child[1], "g", 1);
    int status; waitpid(child, &status, 0);
    got = cuCheckpointProcessGetState(child, &state);
    printf("parent: child ended, status %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status));
    /* The same on a stopped child: does GetState answer for a stopped process? */
    pid_t second = fork();
    if (second == 0) {
        CUdevice device; CUcontext context;
        if (cuInit(0) || cuDeviceGet(&device, 0) || cuDevicePrimaryCtxRetain(&context, device) || cuCtxSetCurrent(context)) _exit(2);
        write(to_parent[1], "r", 1);
        for (;;) pause();
    }
    read(to_parent[0], &ready, 1);
    locked = cuCheckpointProcessLock(second, &lock_args);
    kill(second, SIGSTOP); waitpid(second, &status, WUNTRACED);
    alarm(10); signal(SIGALRM, on_alarm);
    got = cuCheckpointProcessGetState(second, &state);
    printf("parent: lock second -> %d; stopped, its state -> %d (%d)\n", locked, got, state);
    kill(second, SIGKILL); waitpid(second, &status, 0);
    return 0;
}
