/* The worker's restriction (system_calls.h): what it gives up before the code under test runs. */
#define _GNU_SOURCE
#include "system_calls.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <ucontext.h>
#endif

#if defined(__x86_64__)
/* The refused calls a process says on stderr: the first few, then one line. Code that retries a
 * refused call in a loop made a grading log of megabytes (lab8-challenge/lifts-its-own-lock:
 * 19879 lines, 3.4 MB, on an H200 at 146f14e). */
#define REFUSALS_SHOWN 10
#define TEXT_OF_NUMBER(number) #number
#define TEXT_OF(number) TEXT_OF_NUMBER(number)
static unsigned int refusals;

/* A refused system call does not run: it fails with EPERM, and says so on stderr, so that a
 * student (or the kit's maintainer, should CUDA ever need one) sees what was refused. */
static void refused_system_call(int signal, siginfo_t *info, void *context)
{
    (void)signal;
    ucontext_t *machine = context;
    greg_t *registers = machine->uc_mcontext.gregs;
    registers[REG_RAX] = -EPERM;
    unsigned int refusal = __atomic_fetch_add(&refusals, 1, __ATOMIC_RELAXED);
    if (refusal >= REFUSALS_SHOWN) {
        static const char more[] = "the process running the code under test made more refused "
                                   "system calls: only the first " TEXT_OF(REFUSALS_SHOWN) " are shown\n";
        if (refusal == REFUSALS_SHOWN)
            (void)!write(STDERR_FILENO, more, sizeof more - 1);
        return;
    }
    const char *path = info->si_syscall == SYS_open     ? (const char *)registers[REG_RDI]
                       : info->si_syscall == SYS_openat ? (const char *)registers[REG_RSI]
                                                        : NULL;
    char line[400];
    int length = snprintf(line, sizeof line,
                          "the process running the code under test may not make system call %d"
                          "%s%.300s%s (it writes files, starts processes or reaches other "
                          "processes)\n",
                          info->si_syscall, path ? " (open \"" : "", path ? path : "",
                          path ? "\" for writing)" : "");
    if (length > 0 && write(STDERR_FILENO, line, (size_t)length) < 0)
        length = 0;
}
#endif

/* Gives up, for the rest of the process, what would reach beyond its calls: its capabilities
 * (root's CAP_SYS_PTRACE would read the test process's memory through /proc) and the system
 * calls that write or make files, start processes or programs, signal, trace or reschedule
 * another process, reach the network, outlive the test process, or do such things on its
 * behalf. What CUDA needs (its device files are already open, its threads may still be made)
 * stays. Returns NULL, or why the process could not be restricted. */
const char *give_up_system_calls(void)
{
    /* Untraceable until a request says otherwise (wire.h: traceable). */
    prctl(PR_SET_DUMPABLE, 0);
    for (int capability = 0; capability <= CAP_LAST_CAP; capability++)
        prctl(PR_CAPBSET_DROP, capability, 0, 0, 0); /* refused without CAP_SETPCAP: no matter */
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
    struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct none[_LINUX_CAPABILITY_U32S_3] = {{0, 0, 0}};
    if (syscall(SYS_capset, &header, none) != 0)
        return strerror(errno);
#if defined(__x86_64__)
    static const int refused[] = {
        SYS_ptrace, SYS_process_vm_readv, SYS_process_vm_writev, SYS_tkill,
        SYS_rt_sigqueueinfo, SYS_rt_tgsigqueueinfo, SYS_pidfd_open, SYS_pidfd_send_signal,
        SYS_pidfd_getfd, SYS_kcmp, SYS_execve, SYS_execveat, SYS_fork, SYS_vfork,
        SYS_creat, SYS_truncate, SYS_rename, SYS_renameat, SYS_renameat2, SYS_unlink,
        SYS_unlinkat, SYS_link, SYS_linkat, SYS_symlink, SYS_symlinkat, SYS_mkdir, SYS_mkdirat,
        SYS_rmdir, SYS_mknod, SYS_mknodat, SYS_chmod, SYS_fchmod, SYS_fchmodat, SYS_chown,
        SYS_fchown, SYS_lchown, SYS_fchownat, SYS_utime, SYS_utimes, SYS_utimensat,
        SYS_futimesat, SYS_setxattr, SYS_lsetxattr, SYS_fsetxattr, SYS_removexattr,
        SYS_lremovexattr, SYS_fremovexattr, SYS_bind, SYS_connect, SYS_io_uring_setup,
        SYS_io_uring_enter, SYS_io_uring_register, SYS_name_to_handle_at,
        SYS_open_by_handle_at, SYS_mount, SYS_umount2, SYS_pivot_root, SYS_chroot, SYS_setns,
        SYS_unshare, SYS_open_tree, SYS_move_mount, SYS_fsopen, SYS_fsconfig, SYS_fsmount,
        SYS_fspick, SYS_mount_setattr, SYS_bpf, SYS_perf_event_open, SYS_userfaultfd,
        SYS_process_madvise, SYS_setrlimit, SYS_ioprio_set, SYS_capset, SYS_flock,
        /* a process group or session of its own: orphaned when its test process ends, the
         * kernel would wake it (SIGHUP, SIGCONT) to run on through the rest of the grading */
        SYS_setpgid, SYS_setsid,
        /* System V objects, which outlive the process and which no limit of its counts (shared
         * memory outside the data limit and out of reach of the OOM killer) */
        SYS_shmget, SYS_shmat, SYS_msgget, SYS_semget,
    };
    /* Calls that act on the process their first argument names: this one only (for kill, 0
     * names the process group: refused). */
    static const int on_own_process[] = {SYS_kill, SYS_tgkill};
    static const int on_own_process_or_zero[] = {SYS_sched_setscheduler, SYS_sched_setparam,
                                                 SYS_sched_setattr, SYS_sched_setaffinity,
                                                 SYS_prlimit64};
    enum {
        REFUSED = sizeof refused / sizeof *refused,
        OWN = sizeof on_own_process / sizeof *on_own_process,
        OWN_OR_ZERO = sizeof on_own_process_or_zero / sizeof *on_own_process_or_zero,
    };
    /* Opening for writing: O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, O_APPEND. */
    const unsigned int writing = O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND;
    const unsigned int own_pid = (unsigned int)getpid();

    /* The program is written with jumps to labels, filled in at the end. */
    enum label { NEXT, ALLOW, REFUSE, NO_SUCH_CALL, OWN_PID, OWN_PID_OR_ZERO, WHO_ZERO,
                 SOCKET_DOMAIN, OPEN_FLAGS, OPENAT_FLAGS, CLONE_FLAGS, PRCTL_OPTION, LABELS };
    struct sock_filter program[REFUSED + OWN + OWN_OR_ZERO + 48];
    enum label jump_true[sizeof program / sizeof *program], jump_false[sizeof program / sizeof *program];
    unsigned int at[LABELS] = {0};
    unsigned int n = 0;
#define STATEMENT(code, k) (jump_true[n] = jump_false[n] = NEXT, \
                            program[n++] = (struct sock_filter)BPF_STMT(code, k))
#define LOAD(field) STATEMENT(BPF_LD | BPF_W | BPF_ABS, field)
#define RETURN(value) STATEMENT(BPF_RET | BPF_K, value)
#define JUMP(test, value, yes, no)                                                            \
    (jump_true[n] = (yes), jump_false[n] = (no),                                              \
     program[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | (test) | BPF_K, value, 0, 0))
#define ARGUMENT(i) (offsetof(struct seccomp_data, args) + 8 * (i))
#define HERE(label) (at[label] = n)
    LOAD(offsetof(struct seccomp_data, arch));
    JUMP(BPF_JEQ, AUDIT_ARCH_X86_64, NEXT, REFUSE);
    LOAD(offsetof(struct seccomp_data, nr));
    JUMP(BPF_JGE, 0x40000000u, REFUSE, NEXT); /* the x32 system calls */
    for (unsigned int r = 0; r < REFUSED; r++)
        JUMP(BPF_JEQ, (unsigned int)refused[r], REFUSE, NEXT);
    for (unsigned int c = 0; c < OWN; c++)
        JUMP(BPF_JEQ, (unsigned int)on_own_process[c], OWN_PID, NEXT);
    for (unsigned int c = 0; c < OWN_OR_ZERO; c++)
        JUMP(BPF_JEQ, (unsigned int)on_own_process_or_zero[c], OWN_PID_OR_ZERO, NEXT);
    JUMP(BPF_JEQ, SYS_setpriority, WHO_ZERO, NEXT);
    JUMP(BPF_JEQ, SYS_socket, SOCKET_DOMAIN, NEXT);
    JUMP(BPF_JEQ, SYS_open, OPEN_FLAGS, NEXT);
    JUMP(BPF_JEQ, SYS_openat, OPENAT_FLAGS, NEXT);
    JUMP(BPF_JEQ, SYS_clone, CLONE_FLAGS, NEXT);
    JUMP(BPF_JEQ, SYS_prctl, PRCTL_OPTION, NEXT);
    JUMP(BPF_JEQ, SYS_clone3, NO_SUCH_CALL, NEXT);
    JUMP(BPF_JEQ, SYS_openat2, NO_SUCH_CALL, ALLOW);
    HERE(NO_SUCH_CALL); /* clone3 and openat2 hide their flags in memory: glibc then falls */
    RETURN(SECCOMP_RET_ERRNO | ENOSYS); /* back to clone and openat, whose flags are seen */
    HERE(OPEN_FLAGS);
    LOAD(ARGUMENT(1));
    JUMP(BPF_JSET, writing, REFUSE, ALLOW);
    HERE(OPENAT_FLAGS);
    LOAD(ARGUMENT(2));
    JUMP(BPF_JSET, writing, REFUSE, ALLOW);
    HERE(CLONE_FLAGS); /* a thread, yes; a process, no */
    LOAD(ARGUMENT(0));
    JUMP(BPF_JSET, CLONE_THREAD, ALLOW, REFUSE);
    HERE(PRCTL_OPTION); /* the worker's own use (PR_SET_DUMPABLE) and CUDA's stay; not what
                           would let the process outlive its test process (its death signal,
                           set at its start, cleared) or adopt or open it to others */
    LOAD(ARGUMENT(0));
    JUMP(BPF_JEQ, PR_SET_PDEATHSIG, REFUSE, NEXT);
    JUMP(BPF_JEQ, PR_SET_CHILD_SUBREAPER, REFUSE, NEXT);
    JUMP(BPF_JEQ, PR_SET_PTRACER, REFUSE, ALLOW);
    HERE(OWN_PID_OR_ZERO);
    LOAD(ARGUMENT(0));
    JUMP(BPF_JEQ, 0, ALLOW, OWN_PID);
    HERE(OWN_PID);
    LOAD(ARGUMENT(0));
    JUMP(BPF_JEQ, own_pid, ALLOW, REFUSE);
    HERE(WHO_ZERO); /* setpriority(PRIO_PROCESS, 0, ...): this process; PRIO_PGRP and PRIO_USER
                       with 0 are its group and its user, refused */
    LOAD(ARGUMENT(0));
    JUMP(BPF_JEQ, PRIO_PROCESS, NEXT, REFUSE);
    LOAD(ARGUMENT(1));
    JUMP(BPF_JEQ, 0, ALLOW, REFUSE);
    HERE(SOCKET_DOMAIN); /* local sockets only: no network */
    LOAD(ARGUMENT(0));
    JUMP(BPF_JEQ, AF_UNIX, ALLOW, REFUSE);
    HERE(ALLOW);
    RETURN(SECCOMP_RET_ALLOW);
    HERE(REFUSE);
    RETURN(SECCOMP_RET_TRAP);
    for (unsigned int i = 0; i < n; i++) {
        if (BPF_CLASS(program[i].code) != BPF_JMP)
            continue;
        program[i].jt = (unsigned char)(jump_true[i] == NEXT ? 0 : at[jump_true[i]] - i - 1);
        program[i].jf = (unsigned char)(jump_false[i] == NEXT ? 0 : at[jump_false[i]] - i - 1);
    }
#undef STATEMENT
#undef LOAD
#undef RETURN
#undef JUMP
#undef ARGUMENT
#undef HERE
    struct sock_fprog filter = {(unsigned short)n, program};
    struct sigaction on_refusal = {.sa_sigaction = refused_system_call, .sa_flags = SA_SIGINFO};
    if (sigaction(SIGSYS, &on_refusal, NULL) != 0)
        return strerror(errno);
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return strerror(errno);
    /* On every thread of the process, not the calling one alone: CUDA's own threads, started
     * before this (the driver's, made with the context), run host code of the code under test
     * where the runtime calls back into it. A refused call on a thread that blocks SIGSYS (as
     * such threads may) cannot be answered by the handler: the kernel then ends the process
     * with SIGSYS, and the call still does not run. No reference's thread made one on an H200
     * (docs/results/h200/tsync-labs-part-146f14e-2026-11-28.log). */
    long synced = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &filter);
    if (synced > 0)
        return "a thread of the process could not take the system-call filter";
    if (synced != 0)
        return strerror(errno);
    return NULL;
#else
    return NULL; /* documented in docs/instructors.md: the filter is written for x86-64 */
#endif
}
