/* What travels on the socket between a test process and its worker (proxy.c, worker.c). */
#ifndef GRADER_CROSSING_WIRE_H
#define GRADER_CROSSING_WIRE_H

#include "crossing.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The worker's ends: fixed descriptors, set up by the proxy when it starts the worker. */
#define WIRE_SOCKET_FD 3
#define WIRE_SHARED_MEMORY_FD 4

#define WIRE_MAGIC 0x6B726F77u /* "work" */
#define WIRE_MAX_CALLS 64
#define WIRE_KERNEL_NAME_SIZE (CROSSING_KERNEL_NAME_MAX + 1)
#define WIRE_MESSAGE_SIZE 1536

#define WIRE_MAX_FREED 16
#define WIRE_MAX_SKIPPED 4

/* A request: this header, then call_count struct crossing_call. */
struct wire_request {
    uint32_t magic;
    uint32_t call_count;   /* 0: only forget the freed allocations below */
    uint64_t shared_bytes; /* the size of the shared memory the host parameters are in */
    /* Allocations the test process is about to free (their buffer ids): the worker stops
     * mapping them first. It keeps the others mapped: the inputs it will be handed again. */
    uint32_t freed_count;
    uint64_t freed[WIRE_MAX_FREED];
    /* Kernels (by the driver's name) the worker does not launch during this request, answering
     * the launch as if it had: the technique check's test of whether a kernel does the work. */
    uint32_t skipped_count;
    char skipped[WIRE_MAX_SKIPPED][WIRE_KERNEL_NAME_SIZE];
    /* 1: the worker makes itself traceable by its own user for this request and after it (the
     * driver's process lock refuses a grader that is not root any other process); 0: not.
     * The test process sets it (proxy.c, may_be_traceable). */
    uint32_t traceable;
    /* 1: the worker also times the calls on the GPU (wire_reply.gpu_ms). Asked of the
     * references' worker alone, on runs that are not scored: the events cost time that code
     * under test could skip in its own process. */
    uint32_t time_on_gpu;
};

/* A request with the most calls it may carry. */
#define WIRE_LARGEST_REQUEST                                                                  \
    (sizeof(struct wire_request) + WIRE_MAX_CALLS * sizeof(struct crossing_call))

enum wire_status {
    WIRE_RETURNED,     /* every call returned and the device is idle */
    WIRE_CUDA_ERROR,   /* message: the CUDA call that failed and CUDA's message */
    WIRE_BAD_REQUEST,  /* message: what the worker could not do (an unknown function, say) */
    WIRE_MACHINE_PROBLEM, /* the first answer only, before any call: why this machine cannot
                             run the code under test safely */
    WIRE_NOT_READY,    /* message: a call returned with its work still running on a stream the
                          default stream does not wait for */
};

/* What the worker writes on the socket while it serves a request: a note of each kernel launch,
 * sent by the launch's own wrap as the launch returns, then one answer. What the test process
 * knows of the launches comes from these notes alone, read as they arrive: nothing in the
 * worker's memory, which the code under test can change, is read back for it. Every message
 * starts with its kind. */
enum wire_message_kind {
    WIRE_LAUNCH_NOTE = 0x6E75616Cu, /* "laun" */
    WIRE_ANSWER = 0x77736E61u,      /* "answ" */
};

struct wire_launch_note {
    uint32_t kind; /* WIRE_LAUNCH_NOTE */
    uint32_t grid[3], block[3];
    int32_t error;                      /* what the launch call returned (a cudaError_t) */
    char kernel[WIRE_KERNEL_NAME_SIZE]; /* the driver's name; "" where it cannot name it */
};

struct wire_reply {
    uint32_t kind; /* WIRE_ANSWER */
    int32_t status;
    char message[WIRE_MESSAGE_SIZE];
    unsigned char result[CROSSING_RESULT_SIZE]; /* the last call's result */
    /* The GPU's time for the request's calls, by CUDA events the worker records on the default
     * stream before the first call and after the last where the request asks (time_on_gpu);
     * negative where it has none. Taken from the references' worker alone
     * (crossing_last_request_gpu_ms): the student's process can change anything it reports. */
    double gpu_ms;
};

/* The whole of size bytes, or false when the other end has gone. */
bool wire_send(int socket, const void *data, size_t size);
bool wire_receive(int socket, void *data, size_t size);

#endif
