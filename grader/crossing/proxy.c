/* The test process's side of the crossing (crossing.h): starting the workers, sending them
 * calls, and reading what they answer.
 *
 * The connections to the two workers are this process's one piece of state of its own, as
 * CUDA's context is: a proxy has the contract's signature and no room for a handle. */
#define _GNU_SOURCE
#include "crossing.h"
#include "wire.h"

#include "cuda_check.h"
#include "device.h"

#include <criterion/criterion.h>
#include <cuda_runtime_api.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* cuda_check's hook (common/cuda_check.c), where the program defines it: a CUDA error's
 * record, as cuda_check in this process would leave it. */
void cuda_failure_observed(const char *message) __attribute__((weak));

/* The workers' programs: ./grade names them. */
static const char *const worker_variables[CROSSING_TARGET_COUNT] = {
    [CROSSING_STUDENT] = "GRADE_WORKER",
    [CROSSING_REFERENCE] = "GRADE_REFERENCE_WORKER",
};
static const char *const worker_roles[CROSSING_TARGET_COUNT] = {
    [CROSSING_STUDENT] = "your code",
    [CROSSING_REFERENCE] = "the references",
};

#define MAX_NOTED_KERNELS 64
#define MAX_GUARDED_BLOCKS 8

struct host_block {
    const unsigned char *start;
    uint64_t bytes;
};

#define MAX_HANDED 1024
#define MAX_RESULT_HASHES CROSSING_MAX_RESULTS
#define MAX_RESULT_COUNTERS 8192
/* A device parameter up to this size is a result (bins, a counter, a sum), not an input. */
#define RESULT_BYTES 65536

struct connection {
    pid_t pid; /* 0: not started */
    bool held; /* locked by the driver (crossing_hold_worker) until its next request */
    bool traceable; /* told so by its last request (may_be_traceable) */
    int ended_status; /* waitpid's status, once it has ended; -1 before */
    /* The device allocations (buffer ids) handed to it: it maps them until told they are
     * freed, which it must be before they are (cudaFree, wrapped below). */
    uint64_t handed[MAX_HANDED];
    int handed_count;
    int socket;
    int shared_memory;
    unsigned char *shared;
    uint64_t shared_size, shared_used;
};

static struct {
    struct connection workers[CROSSING_TARGET_COUNT];
    double start_ms[CROSSING_TARGET_COUNT]; /* spent starting each kind of worker */
    bool batching;
    int pending_count;
    struct crossing_call pending[WIRE_MAX_CALLS];
    char *kernels[MAX_NOTED_KERNELS];
    int kernel_count;
    bool kernel_not_noted; /* a launch's kernel found the list full */
    struct crossing_launch launches[CROSSING_KEPT_LAUNCHES];
    int launch_count, launch_total;
    struct crossing_launch unkept_shapes[CROSSING_UNKEPT_SHAPES];
    int unkept_shape_count;
    bool unkept_shapes_overflowed;
    char skipped[WIRE_MAX_SKIPPED][WIRE_KERNEL_NAME_SIZE];
    int skipped_count;
    bool recording_results;
    uint64_t result_hashes[MAX_RESULT_HASHES];
    int result_hash_count;
    double result_counters[MAX_RESULT_COUNTERS];
    int result_counter_count;
    int result_counter_starts[MAX_RESULT_HASHES + 1]; /* each hash's first counter */
    struct host_block guarded[MAX_GUARDED_BLOCKS];
    /* The last request's clock (crossing_last_request_launch_times, ..._unlocked_ms). */
    struct timespec request_sent, first_note, last_note, unlocked;
    int request_notes;
    bool request_unlocked;
    double last_gpu_ms; /* crossing_last_request_gpu_ms: the references' alone, else negative */
} crossing;

/* Every process of a grader (Criterion's runner, each test process) cannot be read or traced
 * through /proc by the workers it starts, from its first instruction: not its environment
 * (where the grading record's path is), its memory or its descriptors. */
__attribute__((constructor)) static void not_dumpable(void)
{
    prctl(PR_SET_DUMPABLE, 0);
}

/* Variables a worker keeps: what CUDA, the driver and the loader read, and the shared memory a
 * block may have where the kit stands in for a smaller GPU (common/device.h); nothing of the
 * grading. */
static bool kept_for_worker(const char *entry)
{
    static const char *const prefixes[] = {"CUDA_", "NV", "LD_LIBRARY_PATH=",
                                           "KIT_SHARED_MEMORY_PER_BLOCK="};
    for (size_t p = 0; p < sizeof prefixes / sizeof *prefixes; p++)
        if (strncmp(entry, prefixes[p], strlen(prefixes[p])) == 0)
            return true;
    return false;
}

/* A descriptor at 10 or above, close-on-exec: the worker gets it only through the dup2 of its
 * start, at the number it expects. */
static int high_descriptor(int descriptor)
{
    int moved = fcntl(descriptor, F_DUPFD_CLOEXEC, 10);
    cr_assert(moved >= 0, "crossing: fcntl(F_DUPFD_CLOEXEC): %s", strerror(errno));
    close(descriptor);
    return moved;
}

/* Not the code's fault: the grading machine cannot grade this test (the results model says
 * so, exit 4, and the test keeps its points in the maximum). */
static void machine_problem(const char *format, const char *detail, const char *more)
{
    char reason[512];
    snprintf(reason, sizeof reason, format, detail, more);
    if (crossing_machine_problem_observed)
        crossing_machine_problem_observed(reason);
    cr_skip_test("%s", reason);
}

/* Whether the worker's process has ended and been reaped (its status kept in ended_status): its
 * pid may be another process's by now, so it is never signalled, locked or waited for again. */
static bool reaped(const struct connection *worker)
{
    return worker->ended_status != -1;
}

/* Stops a worker and waits until it is stopped: from here to its next request no thread of it
 * runs, whatever the scheduler's delays. Every worker is stopped between its requests: the
 * student's so that its code cannot read the next inputs or keep the GPU busy while the grader
 * works or times another contender, the references' so that a timed request takes the same
 * steps (resumed, asked, answered) whoever runs it. */
static void stop_worker(struct connection *worker)
{
    int status = 0;
    if (reaped(worker))
        return;
    if (kill(worker->pid, SIGSTOP) == 0 && waitpid(worker->pid, &status, WUNTRACED) == worker->pid &&
        !WIFSTOPPED(status))
        worker->ended_status = status;
}

static void note_launch(struct wire_launch_note *note);
static void release_worker(struct connection *worker);

/* The worker's messages up to its answer: the student's launch notes kept as they come (the
 * references' read past). False when the worker has ended first. */
static bool receive_answer(enum crossing_target target, struct connection *worker,
                           struct wire_reply *reply)
{
    uint32_t kind = 0;
    while (wire_receive(worker->socket, &kind, sizeof kind)) {
        if (kind == WIRE_ANSWER) {
            reply->kind = kind;
            return wire_receive(worker->socket, (unsigned char *)reply + sizeof kind,
                                sizeof *reply - sizeof kind);
        }
        cr_assert(kind == WIRE_LAUNCH_NOTE, "the process running %s wrote on the grader's "
                  "socket what its worker did not: code under test may not write there",
                  worker_roles[target]);
        struct wire_launch_note note = {.kind = kind};
        if (!wire_receive(worker->socket, (unsigned char *)&note + sizeof kind,
                          sizeof note - sizeof kind))
            return false;
        clock_gettime(CLOCK_MONOTONIC, &crossing.last_note);
        if (crossing.request_notes++ == 0)
            crossing.first_note = crossing.last_note;
        if (target == CROSSING_STUDENT)
            note_launch(&note);
    }
    return false;
}

static double milliseconds_between(const struct timespec *start, const struct timespec *end)
{
    return (double)(end->tv_sec - start->tv_sec) * 1e3 +
           (double)(end->tv_nsec - start->tv_nsec) / 1e6;
}

static void start_worker(enum crossing_target target, struct connection *worker)
{
    struct timespec started;
    clock_gettime(CLOCK_MONOTONIC, &started);
    const char *program = getenv(worker_variables[target]);
    if (!program || !*program)
        machine_problem("the grading machine is misconfigured: %s is not set (./grade sets it "
                        "to the program that runs %s)", worker_variables[target],
                        worker_roles[target]);
    if (prctl(PR_GET_DUMPABLE) != 0)
        machine_problem("the test process can be traced by the code it runs%s%s", "", "");
    int ends[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0)
        machine_problem("cannot make a socket to %s: %s", worker_roles[target], strerror(errno));
    /* A request is written whole while its worker is stopped (exchange): the socket must hold
     * the largest, or the write would wait for a worker that cannot read. */
    int buffer = 2 * (int)WIRE_LARGEST_REQUEST, buffer_bytes = 0;
    socklen_t buffer_size = sizeof buffer_bytes;
    if (setsockopt(ends[0], SOL_SOCKET, SO_SNDBUF, &buffer, sizeof buffer) != 0 ||
        getsockopt(ends[0], SOL_SOCKET, SO_SNDBUF, &buffer_bytes, &buffer_size) != 0 ||
        buffer_bytes < buffer)
        machine_problem("the socket to %s cannot hold a whole request (%s; raise "
                        "net.core.wmem_max)", worker_roles[target],
                        buffer_bytes > 0 ? "its buffer is too small" : strerror(errno));
    /* Sealed so that it cannot shrink (a worker that shrank it would make this process fault
     * reading it) and takes no further seal (one against growing would stop this process). */
    int shared_memory = memfd_create("crossing", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (shared_memory < 0 ||
        fcntl(shared_memory, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_SEAL) != 0)
        machine_problem("cannot make memory shared with %s: %s", worker_roles[target],
                        strerror(errno));
    worker->socket = high_descriptor(ends[0]);
    int worker_end = high_descriptor(ends[1]);
    worker->shared_memory = high_descriptor(shared_memory);

    size_t variable_count = 0;
    while (environ[variable_count])
        variable_count++;
    char **environment = calloc(variable_count + 1, sizeof *environment);
    cr_assert(environment, "out of host memory");
    size_t kept = 0;
    for (size_t v = 0; v < variable_count; v++)
        if (kept_for_worker(environ[v]))
            environment[kept++] = environ[v];

    char parent[32];
    snprintf(parent, sizeof parent, "%ld", (long)getpid());
    char *const arguments[] = {(char *)program, parent, NULL};
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, worker_end, WIRE_SOCKET_FD);
    posix_spawn_file_actions_adddup2(&actions, worker->shared_memory, WIRE_SHARED_MEMORY_FD);
    int spawned = posix_spawn(&worker->pid, program, &actions, NULL, arguments, environment);
    posix_spawn_file_actions_destroy(&actions);
    free(environment);
    close(worker_end);
    if (spawned != 0)
        machine_problem("the grading machine cannot start the program that runs %s: %s",
                        worker_roles[target], strerror(spawned));
    /* Its first answer, before any call: whether it could be restricted. */
    struct wire_reply hello;
    if (!receive_answer(target, worker, &hello))
        machine_problem("the program that runs %s ended as it started%s", worker_roles[target],
                        "");
    hello.message[sizeof hello.message - 1] = '\0';
    if (hello.status != WIRE_RETURNED)
        machine_problem("%s: %s", worker_roles[target], hello.message);
    worker->ended_status = -1;
    stop_worker(worker); /* until its first request */
    struct timespec ready;
    clock_gettime(CLOCK_MONOTONIC, &ready);
    crossing.start_ms[target] += milliseconds_between(&started, &ready);
}

static bool exchange(enum crossing_target target, struct connection *worker,
                     const struct wire_request *request, const struct crossing_call *calls,
                     struct wire_reply *reply, double *elapsed_ms);

/* Whether a worker may be traceable by its own user (which the driver's process lock needs where
 * the grader is not root): the student's always, since its process holds nothing but its own
 * code and calls; the references' only while no student's worker is alive, whose code must never
 * read the references' machine code (the references' program may be run, not read). */
static bool may_be_traceable(enum crossing_target target)
{
    return target == CROSSING_STUDENT || crossing.workers[CROSSING_STUDENT].pid == 0;
}

/* A request of no call that only sets whether the worker is traceable, as may_be_traceable
 * says now. */
static void retell_traceable(enum crossing_target target)
{
    struct connection *worker = &crossing.workers[target];
    struct wire_request request = {.magic = WIRE_MAGIC, .shared_bytes = worker->shared_size};
    struct wire_reply reply;
    /* A held worker is unlocked first, while it is still traceable: a grader not run as root
     * could not unlock it once this request has made it untraceable. It runs no code under
     * test (a retold worker is the references'), and it is held again before its next run.
     * Unheld, it is left as it is. */
    release_worker(worker);
    /* A worker that has ended is traced by nobody; its next call says how it ended. */
    (void)exchange(target, worker, &request, NULL, &reply, NULL);
}

static struct connection *connection_to(enum crossing_target target)
{
    struct connection *worker = &crossing.workers[target];
    if (worker->pid == 0) {
        start_worker(target, worker);
        /* Stopped until its first request, the student's code has not run yet. */
        struct connection *references = &crossing.workers[CROSSING_REFERENCE];
        if (target == CROSSING_STUDENT && references->pid != 0 && references->traceable)
            retell_traceable(CROSSING_REFERENCE);
    }
    return worker;
}

/* How the worker ended, in words, once its socket has closed. */
static void describe_end(struct connection *worker, char *text, size_t size)
{
    int status = worker->ended_status;
    pid_t ended = worker->pid;
    if (status == -1) {
        /* Resumed first if stopped, so that a signal sent to it while stopped takes effect. */
        kill(worker->pid, SIGCONT);
        ended = waitpid(worker->pid, &status, 0);
    }
    if (ended != worker->pid)
        snprintf(text, size, "ended (its status is unknown: %s)", strerror(errno));
    else if (WIFSIGNALED(status))
        snprintf(text, size, "crashed (signal %d, %s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    else
        snprintf(text, size, "ended with exit status %d (exit, abort or quick_exit end the "
                 "process: a function of the lab must return)", WEXITSTATUS(status));
    worker->pid = 0;
}

/* Whether this process's CUDA driver can name a kernel (CUDA 12.3 and later), by its handle and
 * by its function, as the workers ask it (worker.c): they run on the same driver and runtime,
 * and the student's is not asked. */
static bool driver_names_kernels(void)
{
    return cuda_driver_function("cuKernelGetName", 12030) &&
           cuda_driver_function("cuFuncGetName", 12030);
}

/* The driver's cuMemGetAddressRange, asked for through the runtime (below). */
typedef int address_range_getter(unsigned long long *base, size_t *size,
                                 unsigned long long pointer);
static void *driver_function(const char *name, int version);

/* A result's counters, kept in order: its 8-byte ones where its size allows, else its 4-byte
 * ones. */
static void note_counters(const unsigned char *bytes, size_t size)
{
    size_t width = size % 8 == 0 ? 8 : 4;
    for (size_t b = 0; b + width <= size && crossing.result_counter_count < MAX_RESULT_COUNTERS;
         b += width) {
        uint64_t counter = 0;
        memcpy(&counter, bytes + b, width); /* little-endian: a 4-byte counter's value */
        crossing.result_counters[crossing.result_counter_count++] = (double)counter;
    }
}

/* FNV-1a over what each call left in its small device parameters, and their counters: the
 * technique check's view of "what the call computed", taken in this process after the worker's
 * answer. */
static void note_result_hashes(const struct crossing_call *calls, int count)
{
    address_range_getter *address_range = driver_function("cuMemGetAddressRange", 3020);
    uint64_t hash = 0xCBF29CE484222325ull;
    if (crossing.result_hash_count < MAX_RESULT_HASHES)
        crossing.result_counter_starts[crossing.result_hash_count] = crossing.result_counter_count;
    for (int c = 0; c < count; c++)
        for (int p = 0; p < calls[c].parameter_count; p++) {
            const struct crossing_parameter *parameter = &calls[c].parameters[p];
            if (parameter->kind != CROSSING_KIND_DEVICE || !parameter->in_allocation)
                continue;
            unsigned long long base = 0;
            size_t size = 0;
            if (address_range(&base, &size, (unsigned long long)parameter->raw_address) != 0 ||
                size > RESULT_BYTES)
                continue;
            unsigned char bytes[RESULT_BYTES];
            CUDA_CHECK(cudaMemcpy(bytes, (void *)(uintptr_t)base, size, cudaMemcpyDeviceToHost));
            for (size_t b = 0; b < size; b++)
                hash = (hash ^ bytes[b]) * 0x100000001B3ull;
            note_counters(bytes, size);
        }
    if (crossing.result_hash_count < MAX_RESULT_HASHES) {
        crossing.result_hashes[crossing.result_hash_count++] = hash;
        crossing.result_counter_starts[crossing.result_hash_count] = crossing.result_counter_count;
    }
}

/* A launch the student's worker told of (wire.h): its kernel's name among those noted since
 * the test began, and its shape among the request's launches. A launch that failed ran nothing
 * and is not one. */
static void note_launch(struct wire_launch_note *note)
{
    if (note->error != 0)
        return;
    note->kernel[sizeof note->kernel - 1] = '\0'; /* the worker's bytes: not trusted to end */
    const char *name = NULL;
    for (int n = 0; n < crossing.kernel_count && !name && note->kernel[0]; n++)
        if (strcmp(crossing.kernels[n], note->kernel) == 0)
            name = crossing.kernels[n];
    if (!name && note->kernel[0] && crossing.kernel_count < MAX_NOTED_KERNELS)
        name = crossing.kernels[crossing.kernel_count++] = strdup(note->kernel);
    else if (!name && note->kernel[0])
        crossing.kernel_not_noted = true;
    struct crossing_launch launch = {name, {note->grid[0], note->grid[1], note->grid[2]},
                                     {note->block[0], note->block[1], note->block[2]}};
    crossing.launch_total++;
    if (crossing.launch_count < CROSSING_KEPT_LAUNCHES) {
        crossing.launches[crossing.launch_count++] = launch;
        return;
    }
    for (int s = 0; s < crossing.unkept_shape_count; s++)
        if (memcmp(crossing.unkept_shapes[s].grid, launch.grid, sizeof launch.grid) == 0 &&
            memcmp(crossing.unkept_shapes[s].block, launch.block, sizeof launch.block) == 0)
            return;
    launch.kernel = NULL; /* a shape: its kernels are not kept */
    if (crossing.unkept_shape_count < CROSSING_UNKEPT_SHAPES)
        crossing.unkept_shapes[crossing.unkept_shape_count++] = launch;
    else
        crossing.unkept_shapes_overflowed = true;
}

/* Waits until this process's own device work is done: the worker must find the memory as this
 * process left it (poisoned, refilled), and the two processes' work is in no common order. */
static void finish_own_device_work(void)
{
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        (void)cudaGetLastError(); /* no GPU here: only host functions cross */
        return;
    }
    CUDA_CHECK(cudaDeviceSynchronize());
}

/* After the call: the bytes the worker changed of a host parameter (and of its guarded block),
 * and only those, written back. The worker's copy is in shared memory, which it may write
 * anywhere; what it is compared with is this process's own. */
static void copy_back(struct connection *worker, struct crossing_call *call, int index)
{
    const struct crossing_parameter *parameter = &call->parameters[index];
    unsigned char *caller = (unsigned char *)call->copy_back[index] - parameter->slack_before;
    const unsigned char *crossed = worker->shared + parameter->offset - parameter->slack_before;
    const unsigned char *original = call->original[index];
    size_t bytes = parameter->slack_before + parameter->bytes + parameter->slack_after;
    for (size_t at = 0; at < bytes; at++)
        if (crossed[at] != original[at])
            caller[at] = crossed[at];
    free(call->original[index]);
    call->original[index] = NULL;
}

/* The driver's process lock (CUDA 12.8, driver 570 and later): CUcheckpointLockArgs and
 * CUcheckpointUnlockArgs, and the two calls, asked for through the runtime. */
struct process_lock_arguments {
    unsigned int timeout_ms;
    unsigned int reserved0;
    uint64_t reserved1[7];
};
typedef int process_lock_call(int pid, struct process_lock_arguments *arguments);
#define DRIVER_NOT_READY 600 /* CUDA_ERROR_NOT_READY: the lock timed out */

static process_lock_call *looked_up_lock_function(const char *name)
{
    return (process_lock_call *)cuda_driver_function(name, 12080);
}

/* Looked up once a test process: a timed run's steps only call them. */
static process_lock_call *process_lock_function(const char *name)
{
    static process_lock_call *lock, *unlock;
    static bool looked_up;
    if (!looked_up) {
        lock = looked_up_lock_function("cuCheckpointProcessLock");
        unlock = looked_up_lock_function("cuCheckpointProcessUnlock");
        looked_up = true;
    }
    return strcmp(name, "cuCheckpointProcessLock") == 0 ? lock : unlock;
}

/* cuCheckpointProcessGetState (the same driver as the lock): CU_PROCESS_STATE_LOCKED is 1. */
typedef int process_state_call(int pid, int *state);
#define PROCESS_STATE_LOCKED 1

/* Whether the driver says the worker is locked: -1 where it cannot say (no such call). */
static int driver_says_locked(pid_t pid)
{
    static process_state_call *get_state;
    static bool looked_up;
    if (!looked_up) {
        get_state =
            (process_state_call *)cuda_driver_function("cuCheckpointProcessGetState", 12080);
        looked_up = true;
    }
    int state = -1;
    if (!get_state || get_state(pid, &state) != 0)
        return -1;
    return state == PROCESS_STATE_LOCKED;
}

/* Tried once a test process, on the references' worker: a driver with the lock can still
 * refuse it (CUresult 304) where the process may not trace its workers (a Yama ptrace_scope
 * of 2 or 3, another security module). */
bool crossing_can_hold_workers(void)
{
    static int can_hold = -1;
    if (can_hold < 0) {
        char why[256] = "";
        can_hold = crossing_hold_worker(CROSSING_REFERENCE, CROSSING_HOLD_TIMEOUT_MS, why,
                                        sizeof why);
        if (!can_hold && getenv("GRADE_SPEED_TRACE"))
            printf("trace: workers not held between timed runs (memory of its own each run "
                   "instead): %s\n", why);
    }
    return can_hold;
}

bool crossing_hold_worker(enum crossing_target target, unsigned int timeout_ms, char *why,
                          size_t why_size)
{
    struct connection *worker = connection_to(target);
    process_lock_call *lock = process_lock_function("cuCheckpointProcessLock");
    if (!lock || !process_lock_function("cuCheckpointProcessUnlock")) {
        snprintf(why, why_size, "this CUDA driver cannot lock a process (cuCheckpointProcessLock: "
                 "driver 570 or later)");
        return false;
    }
    if (worker->held)
        return true;
    if (reaped(worker)) {
        snprintf(why, why_size, "its process had ended");
        return false;
    }
    if (!worker->traceable && may_be_traceable(target))
        retell_traceable(target);
    /* The driver locks a running process only: it is resumed for the lock, and stopped again. */
    kill(worker->pid, SIGCONT);
    struct process_lock_arguments arguments = {.timeout_ms = timeout_ms};
    int result = lock(worker->pid, &arguments);
    /* Asked while it runs, as the lock is: the driver does not answer for a stopped process
     * (it waited past 5 s on an H100, docs/results/h100/process-lock-probes-2026-11-28.log).
     * Still locked, it has no GPU work running (the lock waits for it) and can start none. A
     * process can lift the driver's lock on itself (the same log): code that did so at once, to
     * leave a kernel waiting for the next inputs, is found here, or at its next run's unlock
     * (release_worker); the moment between this question and the stop stays open
     * (docs/maintainers.md). */
    int locked = result == 0 ? driver_says_locked(worker->pid) : -1;
    stop_worker(worker);
    if (locked == 0) {
        snprintf(why, why_size, "it was no longer locked right after the lock: code in it "
                 "changed the driver's lock on its own process, which code under test may not do");
        return false;
    }
    if (result == DRIVER_NOT_READY) {
        snprintf(why, why_size, "its GPU work was still running %u ms after its answer. A function "
                 "must finish its GPU work before it returns: look for a kernel that never ends, "
                 "or work left on a stream the function does not wait for", timeout_ms);
        return false;
    }
    if (result != 0) {
        snprintf(why, why_size, "the CUDA driver could not lock it (CUresult %d)", result);
        return false;
    }
    worker->held = true;
    return true;
}

/* Whether the worker has ended (reaped now, its status kept for describe_end), waiting up to
 * 100 ms for a process on its way out: one that dies closes its socket, and leaves the driver
 * nothing to unlock, a moment before it can be reaped. */
static bool reaped_if_ended(struct connection *worker)
{
    int status;
    for (int tries = 0; tries < 20 && !reaped(worker); tries++) {
        if (waitpid(worker->pid, &status, WNOHANG) == worker->pid)
            worker->ended_status = status;
        else
            nanosleep(&(struct timespec){.tv_nsec = 5000000}, NULL);
    }
    return reaped(worker);
}

/* Lets a held worker run CUDA again: resumed first, as the driver needs. */
static void release_worker(struct connection *worker)
{
    if (!worker->held)
        return;
    if (reaped(worker)) { /* nothing to unlock */
        worker->held = false;
        return;
    }
    kill(worker->pid, SIGCONT);
    struct process_lock_arguments arguments = {0};
    process_lock_call *unlock = process_lock_function("cuCheckpointProcessUnlock");
    int result = unlock ? unlock(worker->pid, &arguments) : -1;
    /* Resumed, code under test runs before the unlock (its request is waiting), and a crash
     * there leaves no process to unlock (CUresult 304 on an H200, 2026-11-28): the answer's
     * reading then says how it ended, as for any worker that ends before its answer. */
    if (result != 0 && reaped_if_ended(worker)) {
        worker->held = false;
        return;
    }
    const char *role = worker_roles[worker == &crossing.workers[CROSSING_STUDENT]
                                        ? CROSSING_STUDENT
                                        : CROSSING_REFERENCE];
    /* Not locked any more: the process lifted the lock itself after the hold's question. */
    cr_assert(result == 0 || driver_says_locked(worker->pid) != 0,
              "the process running %s was no longer locked when its run began: code in it "
              "changed the driver's lock on its own process, which code under test may not do",
              role);
    cr_assert(result == 0, "the CUDA driver could not unlock the process running %s (CUresult "
              "%d)", role, result);
    worker->held = false;
}

/* One request and its answer, timed by this process's clock; false when the worker has ended.
 * The worker runs only from this request to its answer (stop_worker says why). */
static bool exchange(enum crossing_target target, struct connection *worker,
                     const struct wire_request *request, const struct crossing_call *calls,
                     struct wire_reply *reply, double *elapsed_ms)
{
    if (target == CROSSING_STUDENT) {
        /* A message after the answer (code under test writing on the worker's socket, to be
         * taken for the worker's answer while its work goes on, or a launch by a thread that
         * outlived its call) shows here, at the latest. */
        char extra;
        cr_assert(recv(worker->socket, &extra, 1, MSG_PEEK | MSG_DONTWAIT) <= 0,
                  "the process running your code wrote on the grader's socket after its answer: "
                  "code under test may not write there, nor launch a kernel once its function "
                  "has returned");
    }
    struct wire_request sent = *request;
    sent.traceable = may_be_traceable(target);
    sent.time_on_gpu = request->time_on_gpu && target == CROSSING_REFERENCE;
    if (target == CROSSING_STUDENT && request->call_count > 0) { /* this request's told anew */
        crossing.launch_count = crossing.launch_total = crossing.unkept_shape_count = 0;
        crossing.unkept_shapes_overflowed = false;
    }
    worker->traceable = sent.traceable;
    /* The request is written while the worker is stopped, and the clock starts before the
     * worker is resumed: nothing of its process runs off the clock, whatever it does once
     * resumed. It finds the request waiting. A held worker is then unlocked at once: its calls
     * and any other thread of its process start on the GPU together, none ahead of the calls
     * (unlocked before its request, a thread of the code under test could launch its work on
     * the run's inputs, made at addresses it had been handed before, while the request was on
     * its way). No word from the worker is waited for before the unlock: with one (5415c4a to
     * f0b11dd), a round trip between two processes more on every contender's clock, the
     * reference graded as itself read 0.958-1.065 on an H100, against 0.985-1.016 before
     * (docs/results/h100/ratio-sweep-f0b11dd-2026-11-28.md). */
    bool held = worker->held;
    /* A worker that has ended takes nothing: the reply's reading says how it ended. */
    bool sent_whole = wire_send(worker->socket, &sent, sizeof sent) &&
                      wire_send(worker->socket, calls, request->call_count * sizeof *calls);
    if (!sent_whole && !reaped(worker)) {
        /* Alive, and its end of the socket shut: a held worker would stay held, unlocked never. */
        cr_assert(reaped_if_ended(worker), "the process running %s stopped taking the "
                  "grader's requests: code under test may not touch the grader's socket",
                  worker_roles[target]);
    }
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    if (!reaped(worker))
        kill(worker->pid, SIGCONT);
    /* One that ended instead is not unlocked: the answer's reading says how it ended. */
    crossing.request_unlocked = held && sent_whole;
    if (crossing.request_unlocked) {
        /* The unlock stays on the clock, though it took 0.10-0.53 ms on an H200, by process
         * and by run (docs/results/h200/speed-trace-unlock-4a729f2-2026-11-28.log): the driver
         * lifts the lock through a thread of its own inside the worker and answers this process
         * afterwards, so the worker's code can delay that answer (its reply channel is in the
         * worker's descriptors; threads can crowd the CPUs) while its GPU work already runs.
         * From 494be3e the clock started at the unlock's return; a review found that, and it
         * was taken back. */
        release_worker(worker);
        clock_gettime(CLOCK_MONOTONIC, &crossing.unlocked);
    }
    /* A worker already reaped (before its request was whole, or before its unlock) gave no
     * answer, whatever it wrote on its socket first: one written after its resume, before it
     * lifted the driver's lock on itself and ended, would otherwise be read as the answer of a
     * run whose work its kernel did while the process was held. */
    bool ended_first = reaped(worker);
    if (ended_first)
        crossing.request_unlocked = false;
    crossing.request_sent = start;
    crossing.request_notes = 0;
    bool answered = !ended_first && receive_answer(target, worker, reply);
    crossing.last_gpu_ms = crossing_trusted_gpu_ms(target, answered, request->call_count,
                                                   answered ? reply->gpu_ms : -1.0);
    /* The stop is on the clock: code under test can delay it (a thread of it in a system call
     * that a stop waits for), and off the clock that delay would let its GPU work go on
     * untimed after an early answer. The clock runs on through the results' reading
     * (crossing_ms_since_last_request). */
    if (answered)
        stop_worker(worker);
    clock_gettime(CLOCK_MONOTONIC, &end);
    if (elapsed_ms)
        *elapsed_ms = milliseconds_between(&start, &end);
    return answered;
}

/* Sends calls to their worker and waits for its answer. A failure ends the test here. */
static void run_calls(struct crossing_call *calls, int count, bool time_on_gpu,
                      struct wire_reply *reply, double *elapsed_ms)
{
    enum crossing_target target = calls[0].target;
    struct connection *worker = connection_to(target);
    finish_own_device_work();
    struct wire_request request = {.magic = WIRE_MAGIC, .call_count = (uint32_t)count,
                                   .shared_bytes = worker->shared_size,
                                   .time_on_gpu = time_on_gpu};
    if (target == CROSSING_STUDENT)
        for (int k = 0; k < crossing.skipped_count; k++)
            snprintf(request.skipped[request.skipped_count++], WIRE_KERNEL_NAME_SIZE, "%s",
                     crossing.skipped[k]);
    bool answered = exchange(target, worker, &request, calls, reply, elapsed_ms);
    worker->shared_used = 0; /* no call runs while a batch is made (crossing_call_end) */
    if (!answered) {
        char how[256];
        describe_end(worker, how, sizeof how);
        cr_assert_fail("%s never returned: the process running %s %s", calls[count - 1].function,
                       worker_roles[target], how);
    }
    if (target == CROSSING_STUDENT) {
        if (crossing.recording_results && !crossing.batching)
            note_result_hashes(calls, count);
    }
    reply->message[sizeof reply->message - 1] = '\0';
    if (reply->status == WIRE_CUDA_ERROR) {
        /* As cuda_check does in a process of its own: the message, the record, the end. */
        fprintf(stderr, "%s\n", reply->message);
        fflush(stderr);
        if (cuda_failure_observed)
            cuda_failure_observed(reply->message);
        exit(EXIT_FAILURE);
    }
    cr_assert(reply->status != WIRE_NOT_READY, "%s", reply->message);
    cr_assert(reply->status == WIRE_RETURNED, "the process running %s could not run %s: %s",
              worker_roles[target], calls[0].function, reply->message);
    for (int c = 0; c < count; c++)
        for (int p = 0; p < calls[c].parameter_count; p++)
            if (calls[c].copy_back[p])
                copy_back(worker, &calls[c], p);
}

void crossing_call_start(struct crossing_call *call, enum crossing_target target,
                         const char *function)
{
    memset(call, 0, sizeof *call);
    call->target = target;
    snprintf(call->function, sizeof call->function, "%s", function);
    connection_to(target);
}

static struct crossing_parameter *parameter(struct crossing_call *call, int index, int kind)
{
    cr_assert(index < CROSSING_MAX_PARAMETERS, "crossing: too many parameters in %s",
              call->function);
    if (call->parameter_count < index + 1)
        call->parameter_count = index + 1;
    call->parameters[index].kind = kind;
    return &call->parameters[index];
}

/* The driver's cuMemGetAddressRange and cuPointerGetAttribute, asked for through the runtime:
 * the graders do not link the driver library, which a machine without a GPU lacks. */

typedef int pointer_attribute_getter(void *value, int attribute, unsigned long long pointer);
#define POINTER_ATTRIBUTE_BUFFER_ID 7 /* CU_POINTER_ATTRIBUTE_BUFFER_ID */

static void *driver_function(const char *name, int version)
{
    void *function = cuda_driver_function(name, version);
    cr_assert(function, "the CUDA driver has no %s", name);
    return function;
}

static unsigned long long buffer_id_of(unsigned long long base)
{
    pointer_attribute_getter *attribute = driver_function("cuPointerGetAttribute", 4000);
    unsigned long long buffer_id = 0;
    cr_assert(attribute(&buffer_id, POINTER_ATTRIBUTE_BUFFER_ID, base) == 0,
              "crossing: cuPointerGetAttribute(CU_POINTER_ATTRIBUTE_BUFFER_ID) failed");
    return buffer_id;
}

/* Tells a worker that was handed the allocation to stop mapping it, and waits until it has:
 * CUDA leaves freeing an allocation another process still maps undefined. */
static void forget_in_worker(enum crossing_target target, unsigned long long buffer_id)
{
    struct connection *worker = &crossing.workers[target];
    int found = -1;
    for (int h = 0; h < worker->handed_count && found < 0; h++)
        if (worker->handed[h] == buffer_id)
            found = h;
    if (worker->pid == 0 || found < 0)
        return;
    worker->handed[found] = worker->handed[--worker->handed_count];
    struct wire_request request = {.magic = WIRE_MAGIC, .shared_bytes = worker->shared_size,
                                   .freed_count = 1, .freed = {buffer_id}};
    struct wire_reply reply;
    /* A worker that has ended maps nothing; the next call to it says how it ended. */
    (void)exchange(target, worker, &request, NULL, &reply, NULL);
}

/* The graders' cudaFree (the link's --wrap, GRADER_LDFLAGS in the Makefile): the workers unmap
 * an allocation before it is freed. */
cudaError_t __real_cudaFree(void *pointer);
cudaError_t __wrap_cudaFree(void *pointer);
cudaError_t __wrap_cudaFree(void *pointer)
{
    address_range_getter *address_range = driver_function("cuMemGetAddressRange", 3020);
    unsigned long long base = 0;
    size_t size = 0;
    if (pointer && address_range(&base, &size, (unsigned long long)(uintptr_t)pointer) == 0) {
        unsigned long long buffer_id = buffer_id_of(base);
        for (int target = 0; target < CROSSING_TARGET_COUNT; target++)
            forget_in_worker((enum crossing_target)target, buffer_id);
    }
    return __real_cudaFree(pointer);
}

void crossing_put_device(struct crossing_call *call, int index, const void *pointer)
{
    struct crossing_parameter *crossing_parameter = parameter(call, index, CROSSING_KIND_DEVICE);
    crossing_parameter->raw_address = (uint64_t)(uintptr_t)pointer;
    if (!pointer)
        return;
    address_range_getter *address_range = driver_function("cuMemGetAddressRange", 3020);
    unsigned long long base = 0;
    size_t size = 0;
    /* A pointer in no allocation (one past the end of an empty buffer, say) crosses as it is:
     * the code under test may hold it, not use it. */
    if (address_range(&base, &size, (unsigned long long)(uintptr_t)pointer) != 0)
        return;
    crossing_parameter->buffer_id = buffer_id_of(base);
    struct connection *worker = connection_to(call->target);
    bool handed = false;
    for (int h = 0; h < worker->handed_count && !handed; h++)
        handed = worker->handed[h] == crossing_parameter->buffer_id;
    if (!handed) {
        cr_assert(worker->handed_count < MAX_HANDED, "crossing: more than %d device allocations "
                  "handed to a worker at once", MAX_HANDED);
        worker->handed[worker->handed_count++] = crossing_parameter->buffer_id;
    }
    cudaIpcMemHandle_t handle;
    CUDA_CHECK(cudaIpcGetMemHandle(&handle, (void *)(uintptr_t)base));
    _Static_assert(sizeof handle <= sizeof crossing_parameter->ipc_handle, "IPC handle size");
    memcpy(crossing_parameter->ipc_handle, &handle, sizeof handle);
    crossing_parameter->offset = (uint64_t)(uintptr_t)pointer - base;
    crossing_parameter->in_allocation = 1;
}

void crossing_put_value(struct crossing_call *call, int index, const void *value, size_t size)
{
    struct crossing_parameter *crossing_parameter = parameter(call, index, CROSSING_KIND_VALUE);
    cr_assert(size <= sizeof crossing_parameter->value, "crossing: a value of %zu bytes", size);
    memcpy(crossing_parameter->value, value, size);
}

void crossing_guarded_host_block(const void *start, uint64_t bytes)
{
    for (int b = 0; b < MAX_GUARDED_BLOCKS; b++)
        if (!crossing.guarded[b].start) {
            crossing.guarded[b] = (struct host_block){start, bytes};
            return;
        }
    cr_assert_fail("crossing: more than %d guarded host blocks at once", MAX_GUARDED_BLOCKS);
}

void crossing_forget_host_block(const void *start)
{
    for (int b = 0; b < MAX_GUARDED_BLOCKS; b++)
        if (crossing.guarded[b].start == start)
            crossing.guarded[b] = (struct host_block){NULL, 0};
}

/* The guarded block that holds bytes at pointer, or none. */
static const struct host_block *block_holding(const unsigned char *pointer, uint64_t bytes)
{
    for (int b = 0; b < MAX_GUARDED_BLOCKS; b++) {
        const struct host_block *block = &crossing.guarded[b];
        if (block->start && pointer >= block->start &&
            pointer + bytes <= block->start + block->bytes)
            return block;
    }
    return NULL;
}

void crossing_put_host(struct crossing_call *call, int index, const void *pointer, uint64_t bytes)
{
    struct crossing_parameter *crossing_parameter = parameter(call, index, CROSSING_KIND_HOST);
    if (!pointer) {
        crossing_parameter->raw_address = 0;
        return;
    }
    const unsigned char *start = pointer;
    const struct host_block *block = block_holding(start, bytes);
    uint64_t before = block ? (uint64_t)(start - block->start) : 0;
    uint64_t after = block ? (uint64_t)(block->start + block->bytes - (start + bytes)) : 0;
    uint64_t crossing_bytes = before + bytes + after;

    struct connection *worker = connection_to(call->target);
    uint64_t region = (worker->shared_used + 63) & ~(uint64_t)63;
    uint64_t end = region + before + bytes + after;
    if (end > worker->shared_size || worker->shared_size == 0) {
        uint64_t size = (end + (1u << 20)) & ~(uint64_t)((1u << 20) - 1);
        /* Sealed against shrinking, not growing: a worker that grew it would have the resize
         * below fail, which is the code under test's doing, not the machine's. */
        struct stat shared_status;
        cr_assert(fstat(worker->shared_memory, &shared_status) != 0 ||
                      (uint64_t)shared_status.st_size <= worker->shared_size,
                  "the process running %s changed the size of the memory it shares with the "
                  "grader: code under test may not", worker_roles[call->target]);
        if (ftruncate(worker->shared_memory, (off_t)size) != 0)
            machine_problem("cannot make %s bytes of memory shared with the worker: %s",
                            "that many", strerror(errno));
        if (worker->shared)
            munmap(worker->shared, worker->shared_size);
        worker->shared = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
                              worker->shared_memory, 0);
        if (worker->shared == MAP_FAILED)
            machine_problem("cannot map memory shared with the worker: %s%s", strerror(errno), "");
        worker->shared_size = size;
    }
    memcpy(worker->shared + region, start - before, crossing_bytes);
    call->original[index] = malloc(crossing_bytes);
    cr_assert(call->original[index], "crossing: out of host memory for %zu bytes",
              (size_t)crossing_bytes);
    memcpy(call->original[index], start - before, crossing_bytes);
    worker->shared_used = end;
    crossing_parameter->raw_address = (uint64_t)(uintptr_t)pointer;
    crossing_parameter->offset = region + before;
    crossing_parameter->bytes = bytes;
    crossing_parameter->slack_before = before;
    crossing_parameter->slack_after = after;
    call->copy_back[index] = (void *)pointer;
}

void crossing_call_end(struct crossing_call *call, void *result, size_t result_size)
{
    /* A timed run is its batch alone: a call that returns a value would run at once, outside the
     * clock, and leave the worker unlocked before the batch (a worker held between runs pays its
     * unlock on the clock), so that its contender would not be timed as the others are. Such a
     * value is asked for before the timing (lab 8's lab 6 reference takes its chosen parameter
     * when its contender is made). */
    cr_assert(!crossing.batching || result_size == 0, "grader defect: %s returns a value and was "
              "called inside a timed run; ask for it before the timing", call->function);
    if (crossing.batching) {
        cr_assert(crossing.pending_count < WIRE_MAX_CALLS, "crossing: a batch of more than %d calls",
                  WIRE_MAX_CALLS);
        cr_assert(crossing.pending_count == 0 || crossing.pending[0].target == call->target,
                  "crossing: a batch goes to one worker");
        crossing.pending[crossing.pending_count++] = *call;
        return;
    }
    struct wire_reply reply;
    run_calls(call, 1, false, &reply, NULL);
    if (result_size)
        memcpy(result, reply.result, result_size);
}

void crossing_batch_begin(void)
{
    crossing.batching = true;
    crossing.pending_count = 0;
}

static double run_batch(bool time_on_gpu)
{
    crossing.batching = false;
    cr_assert(crossing.pending_count > 0, "crossing: an empty batch");
    struct wire_reply reply;
    double elapsed_ms = 0.0;
    run_calls(crossing.pending, crossing.pending_count, time_on_gpu, &reply, &elapsed_ms);
    crossing.pending_count = 0;
    return elapsed_ms;
}

double crossing_batch_run(void)
{
    return run_batch(false);
}

double crossing_batch_run_timed_on_gpu(void)
{
    cr_assert(crossing_batch_target() == CROSSING_REFERENCE, "grader defect: a batch timed on the "
              "GPU goes to the references' worker alone");
    return run_batch(true);
}

bool crossing_last_request_launch_times(double *first_ms, double *last_ms)
{
    if (crossing.request_notes == 0)
        return false;
    *first_ms = milliseconds_between(&crossing.request_sent, &crossing.first_note);
    *last_ms = milliseconds_between(&crossing.request_sent, &crossing.last_note);
    return true;
}

double crossing_ms_since_last_request(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return milliseconds_between(&crossing.request_sent, &now);
}

double crossing_worker_start_ms(enum crossing_target target)
{
    return crossing.start_ms[target];
}

double crossing_last_request_unlocked_ms(void)
{
    return crossing.request_unlocked
               ? milliseconds_between(&crossing.request_sent, &crossing.unlocked)
               : -1.0;
}

double crossing_trusted_gpu_ms(enum crossing_target target, bool answered, uint32_t call_count,
                               double reported_ms)
{
    return target == CROSSING_REFERENCE && answered && call_count > 0 && reported_ms > 0.0
               ? reported_ms
               : -1.0;
}

bool crossing_last_request_gpu_ms(double *gpu_ms)
{
    if (crossing.last_gpu_ms <= 0.0)
        return false;
    *gpu_ms = crossing.last_gpu_ms;
    return true;
}

int crossing_batch_target(void)
{
    return crossing.pending_count > 0 ? (int)crossing.pending[0].target : -1;
}

void crossing_end_worker(enum crossing_target target)
{
    struct connection *worker = &crossing.workers[target];
    if (worker->pid == 0)
        return;
    /* Once reaped, the process and its CUDA context are gone (its device files closed). */
    if (!reaped(worker)) {
        kill(worker->pid, SIGKILL);
        int status = 0;
        while (waitpid(worker->pid, &status, 0) < 0 && errno == EINTR)
            ;
    }
    close(worker->socket);
    close(worker->shared_memory);
    if (worker->shared)
        munmap(worker->shared, worker->shared_size);
    *worker = (struct connection){0};
}

void crossing_skip_kernels(const char *const *names, int count)
{
    crossing.skipped_count = 0;
    for (int k = 0; k < count && k < WIRE_MAX_SKIPPED; k++)
        snprintf(crossing.skipped[crossing.skipped_count++], WIRE_KERNEL_NAME_SIZE, "%s", names[k]);
}

void crossing_record_results(bool on)
{
    crossing.recording_results = on;
    crossing.result_hash_count = 0;
    crossing.result_counter_count = 0;
    crossing.result_counter_starts[0] = 0;
}

int crossing_result_counters(const double **counters, const int **starts)
{
    *counters = crossing.result_counters;
    *starts = crossing.result_counter_starts;
    return crossing.result_counter_count;
}

int crossing_result_hashes(const uint64_t **hashes)
{
    *hashes = crossing.result_hashes;
    return crossing.result_hash_count;
}

int crossing_last_launches(const struct crossing_launch **launches, int *total)
{
    *launches = crossing.launches;
    *total = crossing.launch_total;
    return crossing.launch_count;
}

bool crossing_unkept_launch_shapes(const struct crossing_launch **shapes, int *count)
{
    *shapes = crossing.unkept_shapes;
    *count = crossing.unkept_shape_count;
    return !crossing.unkept_shapes_overflowed;
}

bool crossing_every_kernel_noted(void)
{
    return !crossing.kernel_not_noted;
}

int crossing_launched_kernels(const char *const **names, bool *names_known)
{
    *names = (const char *const *)crossing.kernels;
    *names_known = driver_names_kernels();
    return crossing.kernel_count;
}
