/* The worker: the process that runs the code under test (the student's object, or the
 * references), one call at a time, for one test process (proxy.c). It answers each request
 * once every call has returned and its device is idle; each kernel launch is told as it returns
 * (wire.h).
 *
 * Its state (the request being run, what the proxy's memory maps to here) is this program's
 * own, held in one place: the kernel-launch hook and cuda_check's hook reach it from inside the
 * code under test. */
#define _GNU_SOURCE
#include "crossing.h"
#include "system_calls.h"
#include "wire.h"

#include "cuda_check.h"
#include "device.h"

#include <cuda_runtime_api.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The entries of the lists this worker links (crossings.c), in the linker's section. */
extern const struct crossing_entry __start_grader_crossings[];
extern const struct crossing_entry __stop_grader_crossings[];

#define MAX_OPEN_ALLOCATIONS 256

/* The driver's cuKernelGetName and cuFuncGetName (CUDA 12.3 and later), asked for through the
 * runtime: the name of a kernel launched by its handle (nvcc's launch since CUDA 13), and of one
 * launched by its host function (nvcc's launch before CUDA 13, and cudaLaunchKernel). */
typedef int handle_name_getter(const char **name, void *kernel);
typedef int function_name_getter(const char **name, cudaFunction_t function);

struct open_allocation {
    unsigned char handle[64];
    uint64_t buffer_id;
    char *base;
    bool used_by_request;
};

static struct {
    struct crossing_call calls[WIRE_MAX_CALLS];
    unsigned char *shared;
    uint64_t shared_size;
    struct open_allocation allocations[MAX_OPEN_ALLOCATIONS];
    int allocation_count;
    struct wire_reply reply;
    struct wire_launch_note launch_note; /* the buffer of the last note sent: never read back */
    bool answered;
    bool cuda_usable; /* false on a machine without a GPU: host functions only */
    const struct wire_request *request; /* being served: its kernels not to launch */
    /* Recorded around a request's calls where it asks (wire_request.time_on_gpu). */
    cudaEvent_t calls_start, calls_end;
    bool events_made;
    handle_name_getter *name_kernel;       /* NULL where the driver cannot name a kernel */
    function_name_getter *name_function; /* likewise */
} worker;

static void send_reply(void)
{
    worker.reply.kind = WIRE_ANSWER;
    if (!wire_send(WIRE_SOCKET_FD, &worker.reply, sizeof worker.reply))
        exit(EXIT_FAILURE); /* the test process is gone */
    worker.answered = true;
}

/* cuda_check's hook (common/cuda_check.c): a CUDA call failed, in the code under test or here,
 * and the process is about to end. The test process reports it as if it had failed there. */
void cuda_failure_observed(const char *message)
{
    if (worker.answered)
        return;
    worker.reply.status = WIRE_CUDA_ERROR;
    snprintf(worker.reply.message, sizeof worker.reply.message, "%s", message);
    send_reply();
}

static void refuse(const char *format, const char *detail)
{
    worker.reply.status = WIRE_BAD_REQUEST;
    snprintf(worker.reply.message, sizeof worker.reply.message, format, detail);
    send_reply();
}

/* ---- the kernels launched: nvcc's launch call, through the link's --wrap ---- */

/* nvcc's <<<...>>> calls __cudaLaunchKernel with the kernel's handle since CUDA 13, and before
 * it cudaLaunchKernel with the kernel's host function (which code may also call itself): the
 * worker is linked with --wrap on both (WORKER_LDFLAGS in the Makefile), so that it sees every
 * launch whichever toolkit built the code under test. */
#if CUDART_VERSION >= 13000
cudaError_t __real___cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void **arguments,
                                      size_t shared_bytes, cudaStream_t stream);
cudaError_t __real___cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block,
                                           void **arguments, size_t shared_bytes,
                                           cudaStream_t stream);
cudaError_t __wrap___cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void **arguments,
                                      size_t shared_bytes, cudaStream_t stream);
cudaError_t __wrap___cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block,
                                           void **arguments, size_t shared_bytes,
                                           cudaStream_t stream);
#endif
cudaError_t __real_cudaLaunchKernel(const void *function, dim3 grid, dim3 block, void **arguments,
                                    size_t shared_bytes, cudaStream_t stream);
cudaError_t __real_cudaLaunchKernel_ptsz(const void *function, dim3 grid, dim3 block,
                                         void **arguments, size_t shared_bytes,
                                         cudaStream_t stream);
cudaError_t __wrap_cudaLaunchKernel(const void *function, dim3 grid, dim3 block, void **arguments,
                                    size_t shared_bytes, cudaStream_t stream);
cudaError_t __wrap_cudaLaunchKernel_ptsz(const void *function, dim3 grid, dim3 block,
                                         void **arguments, size_t shared_bytes,
                                         cudaStream_t stream);

/* Looked up once, before the first call: a launch, often in a timed run, only calls them. */
static void look_up_kernel_namers(void)
{
    worker.name_kernel = (handle_name_getter *)cuda_driver_function("cuKernelGetName", 12030);
    worker.name_function = (function_name_getter *)cuda_driver_function("cuFuncGetName", 12030);
}

/* Whether the request asks for this kernel not to be launched. */
static bool skipped(const char *name)
{
    const struct wire_request *request = worker.request;
    for (uint32_t k = 0; name && request && k < request->skipped_count && k < WIRE_MAX_SKIPPED; k++)
        if (strncmp(request->skipped[k], name, WIRE_KERNEL_NAME_SIZE - 1) == 0)
            return true;
    return false;
}

/* Tells the test process of a launch as it returns, before the code that made it runs again:
 * what the note says cannot be taken back from this process's memory. */
static cudaError_t tell_launch(const char *name, dim3 grid, dim3 block, cudaError_t launched)
{
    worker.launch_note = (struct wire_launch_note){
        WIRE_LAUNCH_NOTE, {grid.x, grid.y, grid.z}, {block.x, block.y, block.z}, (int32_t)launched,
        ""};
    snprintf(worker.launch_note.kernel, sizeof worker.launch_note.kernel, "%s", name ? name : "");
    if (!wire_send(WIRE_SOCKET_FD, &worker.launch_note, sizeof worker.launch_note))
        exit(EXIT_FAILURE); /* the test process is gone */
    return launched;
}

#if CUDART_VERSION >= 13000
static const char *name_of_handle(cudaKernel_t kernel)
{
    const char *name = NULL;
    if (worker.name_kernel)
        worker.name_kernel(&name, (void *)kernel);
    return name;
}

cudaError_t __wrap___cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void **arguments,
                                      size_t shared_bytes, cudaStream_t stream)
{
    const char *name = name_of_handle(kernel);
    if (skipped(name))
        return cudaSuccess;
    return tell_launch(name, grid, block,
                       __real___cudaLaunchKernel(kernel, grid, block, arguments, shared_bytes,
                                                 stream));
}

cudaError_t __wrap___cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block,
                                           void **arguments, size_t shared_bytes,
                                           cudaStream_t stream)
{
    const char *name = name_of_handle(kernel);
    if (skipped(name))
        return cudaSuccess;
    return tell_launch(name, grid, block,
                       __real___cudaLaunchKernel_ptsz(kernel, grid, block, arguments,
                                                      shared_bytes, stream));
}
#endif

/* Where the lookup fails, so does the launch of that function, whose error the code sees: the
 * runtime's last error is left as the launch leaves it, never cleared here. */
static const char *name_of_function(const void *host_function)
{
    const char *name = NULL;
    cudaFunction_t function = NULL;
    if (worker.name_function && cudaGetFuncBySymbol(&function, host_function) == cudaSuccess)
        worker.name_function(&name, function);
    return name;
}

cudaError_t __wrap_cudaLaunchKernel(const void *function, dim3 grid, dim3 block, void **arguments,
                                    size_t shared_bytes, cudaStream_t stream)
{
    const char *name = name_of_function(function);
    if (skipped(name))
        return cudaSuccess;
    return tell_launch(name, grid, block,
                       __real_cudaLaunchKernel(function, grid, block, arguments, shared_bytes,
                                               stream));
}

cudaError_t __wrap_cudaLaunchKernel_ptsz(const void *function, dim3 grid, dim3 block,
                                         void **arguments, size_t shared_bytes,
                                         cudaStream_t stream)
{
    const char *name = name_of_function(function);
    if (skipped(name))
        return cudaSuccess;
    return tell_launch(name, grid, block,
                       __real_cudaLaunchKernel_ptsz(function, grid, block, arguments,
                                                    shared_bytes, stream));
}

/* ---- streams the default stream does not wait for: the contract's result must not be there ---- */

#define MAX_NON_BLOCKING_STREAMS 64
static cudaStream_t non_blocking_streams[MAX_NON_BLOCKING_STREAMS];
static int non_blocking_stream_count;

static void note_stream(cudaError_t created, const cudaStream_t *stream, unsigned int flags)
{
    if (created == cudaSuccess && (flags & cudaStreamNonBlocking) &&
        non_blocking_stream_count < MAX_NON_BLOCKING_STREAMS)
        non_blocking_streams[non_blocking_stream_count++] = *stream;
}

cudaError_t __real_cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags);
cudaError_t __wrap_cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags);
cudaError_t __wrap_cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags)
{
    cudaError_t created = __real_cudaStreamCreateWithFlags(stream, flags);
    note_stream(created, stream, flags);
    return created;
}

cudaError_t __real_cudaStreamCreateWithPriority(cudaStream_t *stream, unsigned int flags,
                                                int priority);
cudaError_t __wrap_cudaStreamCreateWithPriority(cudaStream_t *stream, unsigned int flags,
                                                int priority);
cudaError_t __wrap_cudaStreamCreateWithPriority(cudaStream_t *stream, unsigned int flags,
                                                int priority)
{
    cudaError_t created = __real_cudaStreamCreateWithPriority(stream, flags, priority);
    note_stream(created, stream, flags);
    return created;
}

/* Whether work is still running, right after a call returned, on a stream that the default
 * stream does not wait for: then the caller's next step (a copy of the result) could read it
 * before it is there. */
static bool work_left_running(void)
{
    bool running = cudaStreamQuery(cudaStreamPerThread) == cudaErrorNotReady;
    for (int s = 0; s < non_blocking_stream_count && !running; s++)
        running = cudaStreamQuery(non_blocking_streams[s]) == cudaErrorNotReady;
    (void)cudaGetLastError(); /* a stream since destroyed answers with an error: no matter */
    return running;
}

/* ---- what a call's parameters are here ---- */

static bool same_handle(const struct open_allocation *open, const struct crossing_parameter *parameter)
{
    return memcmp(open->handle, parameter->ipc_handle, sizeof open->handle) == 0;
}

static struct open_allocation *allocation_of(const struct crossing_parameter *parameter)
{
    for (int a = 0; a < worker.allocation_count; a++)
        if (worker.allocations[a].buffer_id == parameter->buffer_id &&
            same_handle(&worker.allocations[a], parameter))
            return &worker.allocations[a];
    return NULL;
}

static void close_allocation(int index)
{
    CUDA_CHECK(cudaIpcCloseMemHandle(worker.allocations[index].base));
    worker.allocations[index] = worker.allocations[--worker.allocation_count];
}

void *crossing_device_pointer(const struct crossing_call *call, int index)
{
    const struct crossing_parameter *parameter = &call->parameters[index];
    if (!parameter->in_allocation)
        return (void *)(uintptr_t)parameter->raw_address;
    return allocation_of(parameter)->base + parameter->offset;
}

void *crossing_value_bytes(struct crossing_call *call, int index)
{
    return call->parameters[index].value;
}

void *crossing_host_pointer(const struct crossing_call *call, int index)
{
    const struct crossing_parameter *parameter = &call->parameters[index];
    if (!parameter->raw_address)
        return NULL;
    return worker.shared + parameter->offset;
}

/* Closes the allocations the test process freed (an open one would keep its memory from going
 * back to the device), then opens those the request refers to. The others stay open: a timed
 * run must not pay for opening its inputs again. */
static void open_allocations(const struct wire_request *request, int call_count)
{
    for (int a = worker.allocation_count - 1; a >= 0; a--)
        for (uint32_t f = 0; f < request->freed_count && f < WIRE_MAX_FREED; f++)
            if (worker.allocations[a].buffer_id == request->freed[f]) {
                close_allocation(a);
                break;
            }
    for (int a = 0; a < worker.allocation_count; a++)
        worker.allocations[a].used_by_request = false;
    for (int c = 0; c < call_count; c++) {
        for (int p = 0; p < worker.calls[c].parameter_count; p++) {
            const struct crossing_parameter *parameter = &worker.calls[c].parameters[p];
            if (parameter->kind != CROSSING_KIND_DEVICE || !parameter->in_allocation)
                continue;
            struct open_allocation *open = allocation_of(parameter);
            if (!open) {
                /* The same handle for another allocation: the test process freed the one it
                 * was, and its memory went to a new one. */
                for (int a = worker.allocation_count - 1; a >= 0; a--)
                    if (same_handle(&worker.allocations[a], parameter))
                        close_allocation(a);
                for (int a = worker.allocation_count - 1;
                     a >= 0 && worker.allocation_count == MAX_OPEN_ALLOCATIONS; a--)
                    if (!worker.allocations[a].used_by_request)
                        close_allocation(a);
                if (worker.allocation_count == MAX_OPEN_ALLOCATIONS) {
                    refuse("a request refers to more than %s allocations", "256");
                    return;
                }
                open = &worker.allocations[worker.allocation_count++];
                memcpy(open->handle, parameter->ipc_handle, sizeof open->handle);
                open->buffer_id = parameter->buffer_id;
                open->used_by_request = false;
                cudaIpcMemHandle_t handle;
                memcpy(&handle, parameter->ipc_handle, sizeof handle);
                CUDA_CHECK(cudaIpcOpenMemHandle((void **)&open->base, handle,
                                                cudaIpcMemLazyEnablePeerAccess));
            }
            open->used_by_request = true;
        }
    }
}

static void map_shared_memory(uint64_t size)
{
    if (size == worker.shared_size)
        return;
    if (worker.shared)
        munmap(worker.shared, worker.shared_size);
    worker.shared = NULL;
    worker.shared_size = 0;
    if (size == 0)
        return;
    worker.shared = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, WIRE_SHARED_MEMORY_FD, 0);
    if (worker.shared == MAP_FAILED) {
        worker.shared = NULL;
        return;
    }
    worker.shared_size = size;
}

static const struct crossing_entry *entry_named(const char *function)
{
    for (const struct crossing_entry *entry = __start_grader_crossings;
         entry < __stop_grader_crossings; entry++)
        if (strcmp(entry->function, function) == 0)
            return entry;
    return NULL;
}

/* Records an event on the legacy default stream, which waits for the work of every blocking
 * stream; false where it cannot, its error cleared, so that it is never taken for an error of
 * the code under test. */
static bool record_event(cudaEvent_t event)
{
    if (cudaEventRecord(event, 0) == cudaSuccess)
        return true;
    (void)cudaGetLastError();
    return false;
}

/* Runs one request's calls back to back, then waits for the device. */
static void serve(const struct wire_request *request)
{
    memset(&worker.reply, 0, sizeof worker.reply);
    worker.reply.gpu_ms = -1.0;
    worker.answered = false;
    map_shared_memory(request->shared_bytes);
    if (request->shared_bytes && !worker.shared) {
        refuse("cannot map the shared memory: %s", strerror(errno));
        return;
    }
    prctl(PR_SET_DUMPABLE, request->traceable ? 1 : 0);
    int count = (int)request->call_count;
    for (int c = 0; c < count; c++) {
        worker.calls[c].function[CROSSING_NAME_SIZE - 1] = '\0';
        if (!entry_named(worker.calls[c].function)) {
            refuse("no function %s here", worker.calls[c].function);
            return;
        }
        for (int p = 0; p < worker.calls[c].parameter_count; p++) {
            const struct crossing_parameter *parameter = &worker.calls[c].parameters[p];
            if (parameter->kind == CROSSING_KIND_HOST && parameter->raw_address &&
                parameter->offset + parameter->bytes > worker.shared_size) {
                refuse("%s: host memory past the shared memory", worker.calls[c].function);
                return;
            }
        }
    }
    open_allocations(request, count);
    if (worker.answered)
        return;
    if (count == 0) { /* only forgetting */
        worker.reply.status = WIRE_RETURNED;
        send_reply();
        return;
    }
    char after[CROSSING_NAME_SIZE + 64];
    bool timed = request->time_on_gpu && worker.events_made && record_event(worker.calls_start);
    for (int c = 0; c < count; c++) {
        entry_named(worker.calls[c].function)->thunk(&worker.calls[c], worker.reply.result);
        snprintf(after, sizeof after, "after %s returned: cudaGetLastError()",
                 worker.calls[c].function);
        if (worker.cuda_usable && work_left_running()) {
            worker.reply.status = WIRE_NOT_READY;
            snprintf(worker.reply.message, sizeof worker.reply.message,
                     "%s returned while its work was still running on a stream that the default "
                     "stream does not wait for (one created with cudaStreamNonBlocking, or the "
                     "per-thread default stream): its result must be complete when it returns. "
                     "Launch on the default stream, or wait for the stream before returning.",
                     worker.calls[c].function);
            (void)cudaDeviceSynchronize();
            send_reply();
            return;
        }
        if (worker.cuda_usable)
            cuda_check(cudaGetLastError(), after, __FILE__, __LINE__);
    }
    timed = timed && record_event(worker.calls_end);
    /* Work left running on any stream is the call's: the answer waits for all of it. */
    snprintf(after, sizeof after, "after %s returned: cudaDeviceSynchronize()",
             worker.calls[count - 1].function);
    if (worker.cuda_usable)
        cuda_check(cudaDeviceSynchronize(), after, __FILE__, __LINE__);
    float gpu_ms = -1.0f;
    if (timed && cudaEventElapsedTime(&gpu_ms, worker.calls_start, worker.calls_end) != cudaSuccess) {
        gpu_ms = -1.0f;
        (void)cudaGetLastError();
    }
    worker.reply.gpu_ms = gpu_ms;
    worker.reply.status = WIRE_RETURNED;
    send_reply();
}

static void close_other_descriptors(void)
{
#ifdef SYS_close_range
    if (syscall(SYS_close_range, WIRE_SHARED_MEMORY_FD + 1, ~0u, 0) == 0)
        return;
#endif
    long last = sysconf(_SC_OPEN_MAX);
    for (long descriptor = WIRE_SHARED_MEMORY_FD + 1; descriptor < last && descriptor < 65536;
         descriptor++)
        close((int)descriptor);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "%s runs the code under test for a grader; ./grade starts it\n", argv[0]);
        return 2;
    }
    /* It dies with the test process that started it, and never outlives it. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if ((long)getppid() != atol(argv[1]))
        return 1;
    close_other_descriptors();
    /* CUDA opens its device files now, before the filter forbids opening for writing. Without a
     * GPU it cannot start, and only the functions that run on the host can be called. */
    worker.cuda_usable = cudaFree(NULL) == cudaSuccess;
    if (worker.cuda_usable) {
        /* The stream-ordered allocator's pool, made now too (the references use it). */
        void *warm = NULL;
        if (cudaMallocAsync(&warm, 1u << 20, 0) == cudaSuccess)
            (void)cudaFreeAsync(warm, 0);
        (void)cudaDeviceSynchronize();
        worker.events_made = cudaEventCreate(&worker.calls_start) == cudaSuccess &&
                             cudaEventCreate(&worker.calls_end) == cudaSuccess;
        look_up_kernel_namers();
    }
    (void)cudaGetLastError();
    /* The first answer, before any call: whether this process could be restricted. Later
     * answers come after code under test has run, and say nothing of the machine. */
    const char *not_restricted = give_up_system_calls();
    worker.reply.status = not_restricted ? WIRE_MACHINE_PROBLEM : WIRE_RETURNED;
    if (not_restricted)
        snprintf(worker.reply.message, sizeof worker.reply.message,
                 "cannot restrict the process that runs the code under test: %s", not_restricted);
    send_reply();
    if (not_restricted)
        return 1;
    struct wire_request request;
    while (wire_receive(WIRE_SOCKET_FD, &request, sizeof request)) {
        if (request.magic != WIRE_MAGIC || request.call_count > WIRE_MAX_CALLS) {
            refuse("a malformed request%s", "");
            return 1;
        }
        if (!wire_receive(WIRE_SOCKET_FD, worker.calls, request.call_count * sizeof *worker.calls))
            return 0;
        worker.request = &request;
        serve(&request);
        worker.request = NULL;
    }
    return 0;
}
