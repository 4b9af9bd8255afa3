/* The speed measurement, one for every lab: how a contender (your function, a reference, CUB,
 * the copy) is timed, so that nothing the code under test can reach carries a time and
 * identical code reads 1.00x.
 *
 * - Phases. The trusted contenders (the references, CUB, the copy) and the student's functions
 *   are timed by turns, in phases: a trusted phase, then one of the student's, and so on,
 *   SPEED_STUDENT_PHASES of the student's between SPEED_STUDENT_PHASES + 1 trusted ones, every
 *   contender's runs of each input shared out among the phases of its kind. The student's worker
 *   is started for each of its phases and ended (its process killed, its CUDA context with it)
 *   before anything else is timed: whatever its code leaves running on the GPU slows only
 *   itself. A run's fixed cost (the hand-overs between processes) moves between levels, on an
 *   H200 0.15-0.2 ms apart, that hold from tens of milliseconds to seconds, whoever runs
 *   (docs/maintainers.md, "The clock and the process lock"): in one phase each, the student's
 *   runs and the reference's fell on different levels, and identical code read 0.88-1.14 an
 *   input. By turns, every contender's runs of an input sample more parts of the measurement.
 *   Within a phase each contender has its warm-up, then its runs back to back, the inputs in
 *   turn, so that every timed run follows a run of the same code, whoever's it is (speed.c,
 *   run_phase). A contender's time on an input is the median of all its runs there.
 * - Inputs of its own. Every scored run of every contender gets new inputs, made on the GPU by the
 *   grader just before its clock starts, from a seed of that contender's run
 *   (common/timed_inputs.h): no code can see an input before its run starts, or reuse an answer
 *   it or another function gave. Every contender's inputs of one kind come from the same
 *   generator and are made by the same steps, so identical code faces the same work.
 * - The grader's clock and the grader's eyes. A run's time runs from the moment its stopped
 *   worker is resumed, its request already waiting (unlocked right after: crossing.h), to the
 *   moment this process has read back every call's result, once, right after the answer and
 *   the worker's stop. A
 *   result not right then counts the run as wrong: a function's work is done when it returns, so
 *   a worker that answers before its work is done (its wait switched off from inside) fails.
 *   Nothing else runs in a scored run: the reference's kernels-alone time comes from runs of
 *   its own (KERNELS_ALONE_RUNS). The test process and both workers start on one CPU
 *   (one_cpu.h), so that no run's hand-overs wait for another CPU to wake, whoever's it is.
 * - A fixed shape. How many calls a run makes is the grader's (a contender's `calls`, or the
 *   workload's default), never measured, and so never changed by a busy GPU or its memory. The
 *   one exception is a trusted baseline's (one_call_when_slow), decided from its own warm-up in
 *   the first trusted phase, before any code under test is alive (and a fills_runs contender's
 *   likewise).
 *
 * Policy is apart: a speed_workload says what an input is and how a result is checked (text,
 * images, counts); a lab's grader lists its contenders and tables. */
#ifndef GRADER_SPEED_H
#define GRADER_SPEED_H

#include "timed_inputs.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MAX_TIMED_CONTENDERS 24
#define MAX_TIMED_INPUTS 16
#define MAX_TIMED_CALLS 64

/* Something timed: a function of the student's or a trusted one, run `calls` times a run. */
struct timed_contender {
    const char *label;
    bool student;  /* the student's code: timed in the student's phase, in its own worker */
    bool on_host;  /* a sequential CPU function: called on the workload's host sample, one call
                      a run; its time is its fastest run (timing.c says why), never scored */
    int calls;     /* a run's calls, each on its own input; 0: the workload's */
    /* A trusted baseline only (never the student's, nor a reference the student's function is
     * compared with as identical code): on an input where its warm-up's call takes
     * SPEED_SLOW_CALL_MS or more, a run is one call. A run's fixed cost (the request, the GPU's
     * switches between processes, the reading of the results) is then small beside its call,
     * while on a quick input the baseline makes `calls` calls a run, as the functions it is
     * compared with do, and bears the same share of that cost: one variable at a time. */
    bool one_call_when_slow;
    /* A trusted contender's only: on each input its warm-up's one call decides its calls a run,
     * as many as make a run last SPEED_RUN_MS, at most `calls` (speed_calls_to_fill_run). A
     * call that is quick on one input and slow on another (lab 4's atomics: 0.2 ms on text
     * without letters, 50 ms on English on an H200) then bears the run's fixed cost on every
     * input in the same small share. */
    bool fills_runs;
    /* The student's only: 1 + the index of the trusted contender whose calls a run it makes on
     * each input (its scored reference, where that fills its runs), so that the two bear the same
     * share of a run's fixed cost; 0: its own `calls`. The grader decides them, never the
     * student's code. */
    int calls_from;
    /* Makes one call (crossing to the contender's worker): input of `elements` elements (device
     * memory, or host memory for on_host), its result's counters at result. */
    void (*call)(const void *context, const void *input, uint64_t elements,
                 unsigned long long *result);
    const void *context;
    /* Whether its result is right, where the workload's check is not its (a racy count); NULL:
     * the workload's. */
    bool (*result_is_right)(const unsigned long long *got, const unsigned long long *expected,
                            unsigned int counters);
    /* Whether the launches of the student's timed run of `calls` calls have the contract's
     * shape (the count labs' one launch of one thread a count, lab 9 part A's caller's blocks),
     * as its worker told them at each launch (crossing.h); NULL: no shape asked. Checked on
     * every timed run, so that no launch is in the contract's shape only where not timed. */
    bool (*launches_are_right)(const void *context, int calls, char *why, size_t why_size);
};

/* What is timed on, and how a result is checked: the policy of a kind of lab. */
struct speed_workload {
    const char *element_name;     /* "text", "image": for the rate legend */
    enum timed_format format;     /* of the inputs (unused when elements is 0) */
    uint64_t elements;            /* a call's input: elements of the format; 0: no input */
    unsigned int result_counters; /* a call's result */
    int default_calls;
    /* The fewest timed runs: a workload whose runs last a few milliseconds needs more of them
     * for a median that holds still (GRADE_RUNS may ask for more). 0: TIMING_MIN_RUNS. */
    int min_timed_runs;
    unsigned char result_initial_byte; /* what a result holds before the call: poison, or 0 */
    int input_count;
    /* Names input `index` and makes its source (timed_inputs.h); NULL with no inputs. */
    void (*open_input)(const struct speed_workload *workload, int index, char *name,
                       size_t name_size, struct timed_source *source);
    /* The expected result of one call, when it is not the input's histogram (no input); NULL
     * otherwise. */
    void (*expected_without_input)(const struct speed_workload *workload,
                                   unsigned long long *expected);
    /* Whether got is right; NULL: equal to expected. */
    bool (*result_is_right)(const unsigned long long *got, const unsigned long long *expected,
                            unsigned int counters);
    /* A CPU contender's input: the first host_sample_elements of the run's first input, whose
     * expected result host_histogram gives. */
    uint64_t host_sample_elements;
    void (*host_histogram)(const void *elements, uint64_t count, unsigned long long *result);
    const void *policy; /* the kind of lab's own data */
};

/* The times of every input: contender_ms[input * count + contender] a call's (the median of
 * its runs' times over their calls; a CPU contender's fastest, scaled to a whole input), and
 * copy_ms[input] the copy's (a device-to-device copy of a call's input, read and written).
 * last_results[contender] holds a contender's last call's result counters, to show.
 * kernel_ms and copy_kernel_ms: a trusted contender's and the copy's time a call on the GPU alone
 * (speed_kernel_ms), without the request's fixed cost; 0 for the student's functions (nothing in
 * their worker carries a time), for a CPU contender, and where the driver gave no such time. */
struct speed_results {
    char input_names[MAX_TIMED_INPUTS][64];
    int input_count;
    double contender_ms[MAX_TIMED_INPUTS * MAX_TIMED_CONTENDERS];
    double copy_ms[MAX_TIMED_INPUTS];
    double kernel_ms[MAX_TIMED_INPUTS * MAX_TIMED_CONTENDERS];
    double copy_kernel_ms[MAX_TIMED_INPUTS];
    unsigned long long last_results[MAX_TIMED_CONTENDERS][4];
};

/* Times every contender on every input of the workload, by the phases above. A run whose result
 * is wrong fails the test (cr_expect, naming the contender and the input), and so does a
 * contender faster than the memory allows. */
void time_contenders(const struct speed_workload *workload, const struct timed_contender *contenders,
                     int count, struct speed_results *results);

/* A call's time on the GPU alone: the median of a trusted contender's runs' times by the events
 * of the references' worker (crossing_last_request_gpu_ms), over its calls a run; 0 where any
 * run has none (the student's worker's, a CPU contender's). Sorts gpu_samples. Those runs are
 * KERNELS_ALONE_RUNS more of each trusted GPU contender in the last trusted phase, not
 * scored, on the inputs of the first of them (no code under test is alive then): the events cost
 * time, which no scored run may hold (code under test could skip them in its own process). */
#define KERNELS_ALONE_RUNS 5
double speed_kernel_ms(double *gpu_samples, size_t runs, int calls);

/* The student's phases of a measurement (speed.h, "Phases"); GRADE_SPEED_STUDENT_PHASES, 1 to
 * SPEED_MOST_STUDENT_PHASES, sets another for the kit's own measurements of the grader. Each
 * costs a start of the student's worker (0.15-0.24 s on an H200). */
#define SPEED_STUDENT_PHASES 3
#define SPEED_MOST_STUDENT_PHASES 8
int speed_student_phases(void);
/* The phases that GRADE_SPEED_STUDENT_PHASES's value asks for: NULL or empty, the default; 0 for
 * a value that is no whole number from 1 to SPEED_MOST_STUDENT_PHASES. */
int speed_student_phases_asked(const char *asked);
/* Phase `phase`'s share of an input's timed_runs scored runs (phase p is the student's where p is
 * odd, of 2 * student_phases + 1): *first_run gets its first, the return its count. Every run
 * falls to one phase of each kind, and each phase has one at least while there are enough. */
int speed_phase_runs(int timed_runs, int phase, int student_phases, int *first_run);

/* A run's calls when a contender does not say: about TIMED_RUN_BYTES (grading.h) of input, at
 * most MAX_DEFAULT_CALLS. */
#define MAX_DEFAULT_CALLS 32
int speed_default_calls(uint64_t call_bytes);

/* A run's calls on one input: `declared`, or 1 for a one_call_when_slow contender whose
 * warm-up took warm_up_ms_a_call a call, SPEED_SLOW_CALL_MS or more. */
#define SPEED_SLOW_CALL_MS 10.0
int speed_calls_on_input(int declared, bool one_call_when_slow, double warm_up_ms_a_call);
/* A fills_runs contender's calls on one input: as many as make SPEED_RUN_MS at its warm-up's
 * warm_up_ms_a_call (which holds a run's fixed cost too, so a quick call is counted slower than
 * it is and makes fewer calls), at least one and at most `declared`. */
#define SPEED_RUN_MS 5.0
int speed_calls_to_fill_run(int declared, double warm_up_ms_a_call);

/* The one line above every speed table that says how it was timed. */
void print_timing_method(const struct speed_workload *workload,
                         const struct timed_contender *contenders, int count);

#endif
