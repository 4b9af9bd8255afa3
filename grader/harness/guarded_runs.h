/* The mechanism every histogram grading shares: a function under test runs on an input laid
 * between guard elements, into bins laid between guard counters and poisoned before each run;
 * afterwards the guards say whether it wrote outside the bins, and a copy of the layout whether
 * it changed its input. What differs from one kind of histogram to another (text, 32-bit
 * pixels, byte pixels) is a guard_policy and the caller's diagnosis, never this code. */
#ifndef GRADER_GUARDED_RUNS_H
#define GRADER_GUARDED_RUNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How many times a GPU function runs on each input: a race rarely shows the same way three
 * times, and the runs are compared with each other too. */
#define CHECK_RUNS 3
/* The most bins of any kind of histogram (byte pixels), and the most guard counters a side. */
#define GUARDED_MAX_BINS 256
#define GUARDED_MAX_BIN_GUARDS 256
/* The bins start as garbage on every run, a byte of this one's top bit and a seed's and a run's
 * others (guarded_runs.c), and the timed runs' results as this one: the function under test
 * must zero them. */
#define POISON_BYTE 0xA5
#define BIN_GUARD_VALUE 0x6A7D6A7D6A7D6A7Dull

/* A kind of histogram's guards: its input elements, the value of the guard elements around the
 * input (a value the diagnosis can recognise when it is counted), and the counters around the
 * bins (enough that any index a likely mistake makes lands in one). */
struct guard_policy {
    unsigned int bins;
    size_t element_bytes;        /* 1 (a byte) or 4 (a 32-bit pixel) */
    uint32_t guard_element;      /* the value of every guard element */
    uint64_t input_guard_bytes;  /* guard bytes after the input, and before it (plus offset) */
    unsigned int bin_guard_counters; /* counters on each side of the bins */
};

/* An input: `count` elements at `elements` (host memory), after `fill_count` elements of
 * `fill_byte` written on the GPU (a text past 4 GiB is never built on the host; fills are of
 * 1-byte elements only). It starts `offset` bytes past a 16-byte boundary. */
struct guarded_input {
    const void *elements;
    uint64_t count;
    uint64_t fill_count;
    uint8_t fill_byte;
    unsigned int offset;
};

/* The function under test, called on one run: input and bins in the memory of the side it runs
 * on (device memory for a GPU function). */
typedef void guarded_call(void *context, const void *input, uint64_t count,
                          unsigned long long *bins, int run);

/* What the runs showed: each finished run's bins, the first guard counter that changed (its
 * index from the first bin: negative before the bins, bins or more after), and whether the
 * input and its guard elements are as they were. A run that wrote outside the bins is the
 * last one. */
struct guarded_outcome {
    unsigned long long runs[CHECK_RUNS][GUARDED_MAX_BINS];
    int runs_done;
    bool inside;
    int changed_counter; /* meaningful when !inside */
    bool input_unchanged;
};

/* Runs a GPU function `runs` times (at most CHECK_RUNS) on the input in device memory, each
 * run on freshly poisoned bins, waiting for the device after each; stops after a run that
 * wrote outside the bins. check_input: compare the layout with what it was afterwards (a copy
 * back of the whole input; false for an input too large to copy, which then reads as
 * unchanged). */
void guarded_runs_on_gpu(const struct guard_policy *policy, const struct guarded_input *input,
                         int runs, bool check_input, guarded_call *call, void *context,
                         struct guarded_outcome *outcome);

/* Runs a CPU function once on the input in host memory, laid out and guarded as on the GPU;
 * the layout and the bins cross to the student's worker with their guards. */
void guarded_run_on_host(const struct guard_policy *policy, const struct guarded_input *input,
                         guarded_call *call, void *context, struct guarded_outcome *outcome);

#endif
