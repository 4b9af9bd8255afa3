/* The crossing: the code under test runs in a process of its own, the worker, never in the
 * process that checks it, times it and writes its test's record.
 *
 * A grader is linked without the student's object. In its place it links a proxy of every
 * function of the lab's contract, of the same name and type: the proxy hands the call to the
 * student's worker (the student's object linked with grader/crossing/worker.c), waits for it to
 * return, and copies back what it wrote. The references run the same way in a worker of their
 * own, so that both are timed alike and neither is in reach of the other. A device pointer
 * crosses as its allocation (a CUDA IPC handle) and its offset in it; host memory crosses as a
 * copy in memory the two processes share; a value crosses as its bytes.
 *
 * Each lab lists its functions once, in grader/<lab>/crossings.h, as an X-macro LAB_CROSSINGS(X)
 * of entries
 *     X(arity, result, name, parameter...)
 * where result is (VOID, void) or (VALUE, type), and each parameter is (kind, type, count):
 *     (DEVICE, type, 0)       a pointer into device memory
 *     (VALUE, type, 0)        an integer, a float, or a pointer the worker gave (opaque)
 *     (HOST_IN, type, count)  host memory read: count elements (count may name a0 .. a4)
 *     (HOST_OUT, type, count) host memory written: count elements
 * (host memory crosses both ways, with the guards around it: crossing_guarded_host_block)
 * grader/crossing/crossings.c turns the list into proxies (in a grader) or into the worker's
 * table of calls, for the student's functions or the references' (reference_<name>).
 *
 * What the worker can reach: nothing of the grading but its calls. It starts with an empty
 * environment (only CUDA's and the loader's variables), with no descriptor but its end of the
 * socket and the shared memory (sealed against shrinking), it dies with the test process, and
 * before the first call it drops its capabilities and gives up, for good, the system calls that
 * could write a file, start a process or program, signal, trace or reschedule another process,
 * or reach the network (worker.c lists them). Every worker is stopped between its requests.
 * A test process cannot be traced or read through /proc. A worker can be, by its own user, where
 * the driver's process lock needs it (a grader not run as root): the student's from its first
 * request, the references' only while no student's worker is alive (proxy.c, may_be_traceable). */
#ifndef GRADER_CROSSING_H
#define GRADER_CROSSING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum crossing_target { CROSSING_STUDENT, CROSSING_REFERENCE, CROSSING_TARGET_COUNT };

#define CROSSING_MAX_PARAMETERS 5
#define CROSSING_NAME_SIZE 96
#define CROSSING_RESULT_SIZE 64

enum crossing_kind { CROSSING_KIND_DEVICE, CROSSING_KIND_VALUE, CROSSING_KIND_HOST };

/* One call as it crosses: what the proxy sends and the worker reads. */
struct crossing_parameter {
    int kind;
    unsigned char value[8];       /* VALUE: its bytes */
    unsigned char ipc_handle[64]; /* DEVICE: the allocation (cudaIpcMemHandle_t) */
    uint64_t buffer_id;           /* DEVICE: the allocation's id in the test process, never
                                     reused there (a freed allocation's handle may be) */
    uint64_t offset;              /* DEVICE: from the allocation's start; HOST: in shared memory */
    uint64_t bytes;               /* HOST: how many */
    uint64_t slack_before, slack_after; /* HOST: the guarded block's bytes around them */
    uint64_t raw_address;         /* DEVICE: the caller's own pointer, when no allocation holds
                                     it (NULL, or past the end of an empty one) */
    int in_allocation;
};

struct crossing_call {
    char function[CROSSING_NAME_SIZE];
    int parameter_count;
    struct crossing_parameter parameters[CROSSING_MAX_PARAMETERS];
    /* In the proxy only: where each host parameter is copied back to, and its bytes (with its
     * block's) as they were before the call, to see what the worker changed. */
    void *copy_back[CROSSING_MAX_PARAMETERS];
    unsigned char *original[CROSSING_MAX_PARAMETERS];
    enum crossing_target target;
};

/* ---- the proxy side (grader/crossing/proxy.c), in the test process ---- */

void crossing_call_start(struct crossing_call *call, enum crossing_target target,
                         const char *function);
void crossing_put_device(struct crossing_call *call, int index, const void *pointer);
void crossing_put_value(struct crossing_call *call, int index, const void *value, size_t size);
/* Host memory crosses both ways: what the worker changed is written back after the call. */
void crossing_put_host(struct crossing_call *call, int index, const void *pointer, uint64_t bytes);

/* A block of the grader's host memory that holds a parameter and the guards around it: a host
 * parameter inside it crosses with the whole block, so that an index out of range reads and
 * writes the guards, as it would in one process, and never anything else of the grader's. A
 * host parameter in no such block crosses alone. Forget the block before freeing it. */
void crossing_guarded_host_block(const void *start, uint64_t bytes);
void crossing_forget_host_block(const void *start);
/* Runs the call (or, inside a batch, queues it) and copies its result into result. A call that
 * fails in the worker (a CUDA error, the process ended) fails the test, saying so. A call that
 * returns a value cannot be part of a batch: made inside one, it fails the test as a grader
 * defect. */
void crossing_call_end(struct crossing_call *call, void *result, size_t result_size);

/* Timing: between crossing_batch_begin and crossing_batch_run, calls queue instead of running;
 * crossing_batch_run sends them together to their worker, which runs them back to back, waits
 * until its device is idle and answers. Returns the milliseconds from the moment the stopped
 * worker is resumed, its request already waiting (a held worker is unlocked right after), to
 * its stop after the answer, measured here: nothing in the worker's reach carries a time. The
 * calls of a batch go to one worker; a call that returns a value may not be made inside one
 * (crossing_call_end). */
void crossing_batch_begin(void);
double crossing_batch_run(void);
/* The kit's own measurement of the grader (GRADE_SPEED_TRACE): when, after the last request was
 * sent, its first and its last kernel launch were told here (ms; false where it launched
 * nothing). The launches' notes arrive as they return in the worker (wire.h): from the request
 * to the first is the worker's waking and its first CUDA call; from the last to the answer, the
 * wait for the device. */
bool crossing_last_request_launch_times(double *first_ms, double *last_ms);
/* The time since the last request's clock started (before its worker was resumed), in ms: a
 * timed GPU run ends its clock with this once it has read the run's results, so that nothing
 * from the worker's resuming to the reading is off the clock (a CPU contender's results come
 * back with its answer). */
double crossing_ms_since_last_request(void);
/* When, after the last request was sent, the driver's unlock of its held worker returned (ms;
 * negative where the worker was not held): the unlock's share of a run's fixed cost. */
double crossing_last_request_unlocked_ms(void);
/* The milliseconds this test process has spent starting workers of target, each from its spawn
 * to its first stop (its CUDA context made): the kit's own measurement (GRADE_SPEED_TRACE). */
double crossing_worker_start_ms(enum crossing_target target);
/* crossing_batch_run for a batch of the references' worker that its worker also times on the GPU,
 * by CUDA events around the calls: for a run that is not scored (the events cost time). */
double crossing_batch_run_timed_on_gpu(void);
/* The GPU's time for the last request's calls, from the events its worker recorded around them
 * (wire.h): a trusted contender's time without the request's fixed cost (waking the worker, the
 * GPU's switch between processes, the answer). False where the last request went to the
 * student's worker, whose process can change what it reports, or had no such time. */
bool crossing_last_request_gpu_ms(double *gpu_ms);
/* The rule of it: a request's reported time is taken from the references' worker alone, where it
 * answered a request of calls with a time; -1 otherwise. */
double crossing_trusted_gpu_ms(enum crossing_target target, bool answered, uint32_t call_count,
                               double reported_ms);
/* The worker the calls queued since crossing_batch_begin go to (the speed measurement checks
 * that a contender's calls go where its phase says); -1 when none is queued. */
int crossing_batch_target(void);

/* Defined by the program that uses the crossing, where it keeps a record of its tests
 * (grader/harness/record_hooks.c): the grading machine cannot run this test (a worker that
 * cannot start or be restricted, say), not the code's fault. The crossing then skips the test.
 * The crossing decides no outcome itself: it tells the layer above it. */
void crossing_machine_problem_observed(const char *reason) __attribute__((weak));

/* The longest kernel name a launch note holds (longer ones are cut). */
#define CROSSING_KERNEL_NAME_MAX 255

/* A kernel launch of the student's code: its name (NULL where the driver cannot name it) and
 * shape, as its worker told it at the launch (grader/crossing/wire.h: never read back from the
 * worker's memory). Launches that failed are not among them. */
struct crossing_launch {
    const char *kernel;
    unsigned int grid[3], block[3];
};
/* The launches of the student's last request, in order: the first CROSSING_KEPT_LAUNCHES;
 * *total gets how many it made. */
#define CROSSING_KEPT_LAUNCHES 4096
int crossing_last_launches(const struct crossing_launch **launches, int *total);
/* The shapes (grid and block, no kernel) of the launches past the kept ones, each once: a
 * launch rule reads every launch, however many. False when there were more than
 * CROSSING_UNKEPT_SHAPES shapes, which no rule can then take for kept. */
#define CROSSING_UNKEPT_SHAPES 64
bool crossing_unkept_launch_shapes(const struct crossing_launch **shapes, int *count);

/* The technique check's experiment: the student's worker launches none of these kernels (the
 * driver's names) until this is called again (count 0: launch everything). */
void crossing_skip_kernels(const char *const *names, int count);
/* While on, each of the student's calls leaves a hash of what it left in its small device
 * parameters (its results), read by this process; crossing_result_hashes gives them in order.
 * Turning it on forgets the earlier ones. */
void crossing_record_results(bool on);
#define CROSSING_MAX_RESULTS 64 /* the calls whose results are kept */
int crossing_result_hashes(const uint64_t **hashes);
/* The results' counters themselves, in order, every call since recording was turned on (the
 * first few thousand), and where each hash's call's start (starts[h], starts[hash count] the
 * end): how much of each call's work a kernel did (technique.c). */
int crossing_result_counters(const double **counters, const int **starts);

/* Holds a worker between two timed runs: waits until every piece of its GPU work has finished
 * and keeps it from starting more (the CUDA driver's process lock, cuCheckpointProcessLock,
 * asked by this process), for up to timeout_ms. The driver carries the lock out through a
 * thread of its own inside the worker, in the code under test's reach: the hold keeps honest
 * code and plain tricks from working between runs, not code that rewrites the driver in its
 * own process (docs/maintainers.md, "The clock and the process lock"). Its next request
 * releases it once its clock has started. False, with why, when its work was still running
 * then, or when this driver cannot lock a process (crossing_can_hold_workers). */
bool crossing_hold_worker(enum crossing_target target, unsigned int timeout_ms, char *why,
                          size_t why_size);
/* How long a worker's GPU work may go on after its answer, before the next run: a right
 * function has none left. */
#define CROSSING_HOLD_TIMEOUT_MS 2000
/* Whether workers can be held here: the driver has the lock (570 or later, Linux) and it
 * locked the references' worker, tried once a test process (that worker is left held). */
bool crossing_can_hold_workers(void);

/* Ends a worker: its process killed and waited for, and with it its CUDA context and whatever
 * it left running on the GPU. The next call to that worker starts a new one. */
void crossing_end_worker(enum crossing_target target);

/* The kernels the student's worker launched since the test began, as the CUDA driver names
 * them; names_known is false when the driver could not name them (older than CUDA 12.3). The
 * strings stay valid until the test process ends. */
int crossing_launched_kernels(const char *const **names, bool *names_known);
/* Whether every kernel launched since the test began is among them: false past the most that
 * are noted (a technique check must then not judge the few it saw). */
bool crossing_every_kernel_noted(void);

/* ---- the worker side (grader/crossing/worker.c) ---- */

typedef void crossing_thunk(struct crossing_call *call, void *result);
struct crossing_entry {
    const char *function;
    crossing_thunk *thunk;
};

void *crossing_device_pointer(const struct crossing_call *call, int index);
void *crossing_value_bytes(struct crossing_call *call, int index);
void *crossing_host_pointer(const struct crossing_call *call, int index);

/* ---- the X-macro's expansions ---- */

#define CROSSING_KIND(kind, type, count) kind
#define CROSSING_TYPE(kind, type, count) type
#define CROSSING_COUNT(kind, type, count) count

#define CROSSING_PUT(call, index, argument, parameter)                                        \
    CROSSING_PUT_(call, index, argument, CROSSING_KIND parameter, CROSSING_COUNT parameter)
#define CROSSING_PUT_(call, index, argument, kind, count)                                     \
    CROSSING_PUT__(call, index, argument, kind, count)
#define CROSSING_PUT__(call, index, argument, kind, count)                                    \
    crossing_put_##kind(call, index, argument, count)
#define crossing_put_DEVICE(call, index, argument, count)                                     \
    crossing_put_device(call, index, (const void *)(argument))
#define crossing_put_VALUE(call, index, argument, count)                                      \
    crossing_put_value(call, index, &(argument), sizeof(argument))
#define crossing_put_HOST_IN(call, index, argument, count)                                    \
    crossing_put_host(call, index, argument, (uint64_t)(count) * sizeof *(argument))
#define crossing_put_HOST_OUT(call, index, argument, count)                                   \
    crossing_put_host(call, index, argument, (uint64_t)(count) * sizeof *(argument))

#define CROSSING_GET(call, index, parameter)                                                  \
    CROSSING_GET_(call, index, CROSSING_KIND parameter, CROSSING_TYPE parameter)
#define CROSSING_GET_(call, index, kind, type) CROSSING_GET__(call, index, kind, type)
#define CROSSING_GET__(call, index, kind, type) crossing_get_##kind(call, index, type)
#define crossing_get_DEVICE(call, index, type) ((type)crossing_device_pointer(call, index))
#define crossing_get_VALUE(call, index, type) (*(type *)crossing_value_bytes(call, index))
#define crossing_get_HOST_IN(call, index, type) ((type)crossing_host_pointer(call, index))
#define crossing_get_HOST_OUT(call, index, type) ((type)crossing_host_pointer(call, index))

/* result: (VOID, void) or (VALUE, type) */
#define CROSSING_RESULT_TYPE(kind, type) type
#define CROSSING_RESULT_KIND(kind, type) kind
#define CROSSING_END(call, result) CROSSING_END_(call, CROSSING_RESULT_KIND result, CROSSING_RESULT_TYPE result)
#define CROSSING_END_(call, kind, type) CROSSING_END__(call, kind, type)
#define CROSSING_END__(call, kind, type) crossing_end_##kind(call, type)
#define crossing_end_VOID(call, type) crossing_call_end(call, NULL, 0);
#define crossing_end_VALUE(call, type)                                                        \
    type crossing_result_;                                                                    \
    crossing_call_end(call, &crossing_result_, sizeof crossing_result_);                      \
    return crossing_result_;

#define CROSSING_RUN(result_space, result, call_expression)                                   \
    CROSSING_RUN_(result_space, CROSSING_RESULT_KIND result, CROSSING_RESULT_TYPE result,      \
                  call_expression)
#define CROSSING_RUN_(space, kind, type, expression) CROSSING_RUN__(space, kind, type, expression)
#define CROSSING_RUN__(space, kind, type, expression) crossing_run_##kind(space, type, expression)
#define crossing_run_VOID(space, type, expression)                                            \
    (void)space;                                                                              \
    expression;
#define crossing_run_VALUE(space, type, expression)                                           \
    {                                                                                         \
        _Static_assert(sizeof(type) <= CROSSING_RESULT_SIZE, "result too large to cross");    \
        type crossing_result_ = expression;                                                   \
        __builtin_memcpy(space, &crossing_result_, sizeof crossing_result_);                  \
    }

/* A proxy: the function of the contract, by its own name (or reference_<name>). */
#define CROSSING_PROXY(arity, ...) CROSSING_PROXY_##arity(__VA_ARGS__)
#define CROSSING_PROXY_HEAD(target, prefix, name, call)                                       \
    struct crossing_call call;                                                                \
    crossing_call_start(&call, target, #prefix #name);
#define CROSSING_PROXY_0(target, prefix, result, name)                                        \
    CROSSING_RESULT_TYPE result prefix##name(void)                                            \
    {                                                                                         \
        CROSSING_PROXY_HEAD(target, prefix, name, call)                                       \
        CROSSING_END(&call, result)                                                           \
    }
#define CROSSING_PROXY_1(target, prefix, result, name, p0)                                    \
    CROSSING_RESULT_TYPE result prefix##name(CROSSING_TYPE p0 a0)                             \
    {                                                                                         \
        CROSSING_PROXY_HEAD(target, prefix, name, call)                                       \
        CROSSING_PUT(&call, 0, a0, p0);                                                       \
        CROSSING_END(&call, result)                                                           \
    }
#define CROSSING_PROXY_2(target, prefix, result, name, p0, p1)                                \
    CROSSING_RESULT_TYPE result prefix##name(CROSSING_TYPE p0 a0, CROSSING_TYPE p1 a1)        \
    {                                                                                         \
        CROSSING_PROXY_HEAD(target, prefix, name, call)                                       \
        CROSSING_PUT(&call, 0, a0, p0);                                                       \
        CROSSING_PUT(&call, 1, a1, p1);                                                       \
        CROSSING_END(&call, result)                                                           \
    }
#define CROSSING_PROXY_3(target, prefix, result, name, p0, p1, p2)                            \
    CROSSING_RESULT_TYPE result prefix##name(CROSSING_TYPE p0 a0, CROSSING_TYPE p1 a1,        \
                                             CROSSING_TYPE p2 a2)                             \
    {                                                                                         \
        CROSSING_PROXY_HEAD(target, prefix, name, call)                                       \
        CROSSING_PUT(&call, 0, a0, p0);                                                       \
        CROSSING_PUT(&call, 1, a1, p1);                                                       \
        CROSSING_PUT(&call, 2, a2, p2);                                                       \
        CROSSING_END(&call, result)                                                           \
    }
#define CROSSING_PROXY_4(target, prefix, result, name, p0, p1, p2, p3)                        \
    CROSSING_RESULT_TYPE result prefix##name(CROSSING_TYPE p0 a0, CROSSING_TYPE p1 a1,        \
                                             CROSSING_TYPE p2 a2, CROSSING_TYPE p3 a3)        \
    {                                                                                         \
        CROSSING_PROXY_HEAD(target, prefix, name, call)                                       \
        CROSSING_PUT(&call, 0, a0, p0);                                                       \
        CROSSING_PUT(&call, 1, a1, p1);                                                       \
        CROSSING_PUT(&call, 2, a2, p2);                                                       \
        CROSSING_PUT(&call, 3, a3, p3);                                                       \
        CROSSING_END(&call, result)                                                           \
    }

/* The worker's entry: a thunk that calls the function, and its place in the table (a linker
 * section, so that a worker holds the entries of whatever lists it links). */
#define CROSSING_ENTRY(prefix, name)                                                          \
    static const struct crossing_entry crossing_entry_##prefix##name                          \
        __attribute__((used, section("grader_crossings"), aligned(sizeof(void *)))) = {        \
            #prefix #name, crossing_thunk_##prefix##name};
#define CROSSING_THUNK(arity, ...) CROSSING_THUNK_##arity(__VA_ARGS__)
#define CROSSING_THUNK_0(target, prefix, result, name)                                        \
    static void crossing_thunk_##prefix##name(struct crossing_call *call, void *space)        \
    {                                                                                         \
        (void)call;                                                                           \
        CROSSING_RUN(space, result, prefix##name())                                           \
    }                                                                                         \
    CROSSING_ENTRY(prefix, name)
#define CROSSING_THUNK_1(target, prefix, result, name, p0)                                    \
    static void crossing_thunk_##prefix##name(struct crossing_call *call, void *space)        \
    {                                                                                         \
        CROSSING_RUN(space, result, prefix##name(CROSSING_GET(call, 0, p0)))                  \
    }                                                                                         \
    CROSSING_ENTRY(prefix, name)
#define CROSSING_THUNK_2(target, prefix, result, name, p0, p1)                                \
    static void crossing_thunk_##prefix##name(struct crossing_call *call, void *space)        \
    {                                                                                         \
        CROSSING_RUN(space, result,                                                           \
                     prefix##name(CROSSING_GET(call, 0, p0), CROSSING_GET(call, 1, p1)))      \
    }                                                                                         \
    CROSSING_ENTRY(prefix, name)
#define CROSSING_THUNK_3(target, prefix, result, name, p0, p1, p2)                            \
    static void crossing_thunk_##prefix##name(struct crossing_call *call, void *space)        \
    {                                                                                         \
        CROSSING_RUN(space, result,                                                           \
                     prefix##name(CROSSING_GET(call, 0, p0), CROSSING_GET(call, 1, p1),       \
                                  CROSSING_GET(call, 2, p2)))                                 \
    }                                                                                         \
    CROSSING_ENTRY(prefix, name)
#define CROSSING_THUNK_4(target, prefix, result, name, p0, p1, p2, p3)                        \
    static void crossing_thunk_##prefix##name(struct crossing_call *call, void *space)        \
    {                                                                                         \
        CROSSING_RUN(space, result,                                                           \
                     prefix##name(CROSSING_GET(call, 0, p0), CROSSING_GET(call, 1, p1),       \
                                  CROSSING_GET(call, 2, p2), CROSSING_GET(call, 3, p3)))      \
    }                                                                                         \
    CROSSING_ENTRY(prefix, name)

#endif
