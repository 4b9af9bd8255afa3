/* What the graders time beside the references, run in the references' worker: a copy of the
 * input (the bandwidth every rate is a share of) and CUB's histograms. */
#ifndef GRADER_BASELINES_H
#define GRADER_BASELINES_H

#include "cub_histogram.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Copies bytes from d_source to d_destination on the device, one kernel's worth of traffic. */
void copy_device_bytes(char *d_destination, const char *d_source, uint64_t bytes);

#ifdef __cplusplus
}
#endif

/* The cub_histogram objects live in the worker: the test process holds them as opaque values. */
#define LAB_CROSSINGS(X)                                                                       \
    X(3, (VOID, void), copy_device_bytes, (DEVICE, char *, 0), (DEVICE, const char *, 0),     \
      (VALUE, uint64_t, 0))                                                                    \
    X(1, (VALUE, struct cub_histogram *), cub_histogram_create, (VALUE, uint64_t, 0))          \
    X(1, (VOID, void), cub_histogram_destroy, (VALUE, struct cub_histogram *, 0))              \
    X(4, (VOID, void), cub_histogram_run, (VALUE, struct cub_histogram *, 0),                  \
      (DEVICE, const char *, 0), (VALUE, uint64_t, 0), (DEVICE, unsigned long long *, 0))      \
    X(1, (VALUE, struct cub_byte_histogram *), cub_byte_histogram_create, (VALUE, uint64_t, 0)) \
    X(1, (VOID, void), cub_byte_histogram_destroy, (VALUE, struct cub_byte_histogram *, 0))    \
    X(4, (VOID, void), cub_byte_histogram_run, (VALUE, struct cub_byte_histogram *, 0),        \
      (DEVICE, const uint8_t *, 0), (VALUE, uint64_t, 0), (DEVICE, unsigned long long *, 0))

#endif
