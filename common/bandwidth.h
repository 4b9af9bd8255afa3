/* How far a histogram is from the memory's limit. A histogram of N bytes must read them all,
 * so no kernel beats the time the memory needs to deliver N bytes. The kit measures that limit
 * the way a practitioner would, with a large device-to-device copy timed in the same run, and
 * reports each histogram as a percentage of it. */
#ifndef COMMON_BANDWIDTH_H
#define COMMON_BANDWIDTH_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A timed_variant (common/timing.h) context: copies bytes from d_source to d_destination. */
struct device_copy {
    const char *d_source;
    char *d_destination;
    uint64_t bytes;
};

/* The timed_variant run function for a struct device_copy. */
void run_device_copy(void *device_copy);

/* Bytes per nanosecond, that is GB/s (10^9 bytes a second); 0 for a time that is not positive. */
double gigabytes_per_second(uint64_t bytes, double ms);

/* A histogram that read histogram_bytes in histogram_ms, as a percentage of the copy's
 * bandwidth; a copy of copy_bytes moves twice that many, read and written. */
double percent_of_copy_bandwidth(uint64_t histogram_bytes, double histogram_ms,
                                 uint64_t copy_bytes, double copy_ms);

#ifdef __cplusplus
}
#endif

#endif
