#define _POSIX_C_SOURCE 199309L
#include "speed.h"

#include "bandwidth.h"
#include "baselines.h"
#include "crossing.h"
#include "cuda_check.h"
#include "device.h"
#include "grading.h"
#include "l2_cache.h"
#include "timing.h"

#include <criterion/criterion.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Inputs start at multiples of this many bytes of their run's allocation. */
#define INPUT_ALIGNMENT 256
/* The fastest rate a histogram may show, as a share of the copy's bandwidth: lab 8's reference
 * reaches 96.7% to 99.3% in make bench (docs/results.md); above this, the input was not read. */
#define MAX_PERCENT_OF_COPY 115

/* The seeds' run numbers of the runs that are not scored: a contender's kernels-alone runs and
 * its warm-ups (one a phase), past every scored run's (1 to the timed runs). */
#define KERNELS_ALONE_RUN_IDS (1 << 20)
#define WARM_UP_RUN_IDS (2 << 20)

static double now_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec * 1e3 + (double)now.tv_nsec / 1e6;
}

static uint64_t mixed_seed(uint64_t value)
{
    uint64_t z = value + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The seed of a contender's run `run` on input `input`: its own, never another's. */
static uint64_t run_seed(uint64_t grading_seed, int contender, int input, int run)
{
    return mixed_seed(mixed_seed(mixed_seed(grading_seed ^ 0x7153ull) ^ (uint64_t)contender) ^
                      ((uint64_t)input << 32) ^ (uint64_t)run);
}

/* A phase's memory on the GPU, shared by its members (the student's functions, or the trusted
 * contenders): inputs for the most calls a member makes, a result for each member's calls, and
 * the copy's destination. Made when the phase starts and freed when it ends; where the driver
 * cannot hold a worker between runs, made new for every run instead, so that no code can see a
 * run's inputs before its clock starts (speed.h). */
struct phase_memory {
    const struct speed_workload *workload;
    const struct timed_source *source;
    size_t element_bytes;
    uint64_t stride; /* between two calls' inputs */
    int calls;       /* the most a member makes */
    bool each_run;
    void *d_inputs;
    char *d_copy;
    unsigned long long *d_expected; /* the grader's own: no worker is handed it; wiped once read */
    /* Every run's results, whoever runs: one allocation for the whole measurement, so that a
     * result's place in memory (which slice of the L2 cache its atomics go to) is the same for
     * every contender. Runs never overlap, and it is poisoned before each. A block of its own
     * (block_of_its_own: every worker is handed it, and so maps the whole block), wiped whole as
     * each phase starts, so that nothing a phase's code leaves in it reaches the next phase. */
    unsigned long long *d_results;
    size_t results_block_bytes;
    struct l2_cleaner *cleaner;
};

/* The calls a contender declares (speed_calls_on_input may make them 1 on an input). */
static int calls_of(const struct speed_workload *workload, const struct timed_contender *contender)
{
    if (contender->on_host)
        return 1;
    int calls = contender->calls ? contender->calls : workload->default_calls;
    cr_assert(calls >= 1 && calls <= MAX_TIMED_CALLS, "grader defect: %s makes %d calls a run",
              contender->label, calls);
    cr_assert(!(contender->student && (contender->one_call_when_slow || contender->fills_runs)),
              "grader defect: %s is the student's, whose calls a run are fixed", contender->label);
    cr_assert(!contender->calls_from || contender->student,
              "grader defect: %s takes another's calls a run, the student's functions' only",
              contender->label);
    return calls;
}

int speed_calls_on_input(int declared, bool one_call_when_slow, double warm_up_ms_a_call)
{
    return one_call_when_slow && warm_up_ms_a_call >= SPEED_SLOW_CALL_MS ? 1 : declared;
}

int speed_calls_to_fill_run(int declared, double warm_up_ms_a_call)
{
    if (!(warm_up_ms_a_call > 0.0))
        return declared;
    double calls = ceil(SPEED_RUN_MS / warm_up_ms_a_call);
    return calls < 1.0 ? 1 : calls > declared ? declared : (int)calls;
}

static size_t result_bytes(const struct speed_workload *workload, int calls)
{
    return (size_t)calls * workload->result_counters * sizeof(unsigned long long);
}

/* A size the driver gives a block of its own (whole 2 MiB pages): a small allocation may share
 * a block with another, and CUDA IPC maps a worker the whole block of what it is handed. The
 * expected answers sit on the GPU while the inputs are made, where a kernel the code under test
 * left running (no lock between runs, memory of its own each run) could read them through a
 * results buffer in the same block. */
static size_t block_of_its_own(size_t bytes)
{
    const size_t page = (size_t)2 << 20;
    return (bytes + page - 1) / page * page;
}

static void allocate_phase_memory(struct phase_memory *memory)
{
    const struct speed_workload *workload = memory->workload;
    if (workload->elements) {
        CUDA_CHECK(cudaMalloc(&memory->d_inputs, (size_t)(memory->calls * memory->stride)));
        CUDA_CHECK(cudaMalloc((void **)&memory->d_copy, (size_t)memory->stride));
        CUDA_CHECK(cudaMalloc((void **)&memory->d_expected,
                              block_of_its_own(result_bytes(workload, memory->calls))));
    }
}

static void free_phase_memory(struct phase_memory *memory)
{
    /* The wrapped cudaFree (grader/crossing/proxy.c) has each worker unmap the memory first. */
    if (memory->d_inputs)
        CUDA_CHECK(cudaFree(memory->d_inputs));
    if (memory->d_copy)
        CUDA_CHECK(cudaFree(memory->d_copy));
    if (memory->d_expected)
        CUDA_CHECK(cudaFree(memory->d_expected));
    memory->d_inputs = NULL;
    memory->d_copy = NULL;
    memory->d_expected = NULL;
}

/* A copy of each call's input, read and written once: the bandwidth every rate is a share of.
 * It runs in the references' worker, as the references do; its destination comes in place of
 * a result. */
static void call_copy(const void *context, const void *input, uint64_t elements,
                      unsigned long long *destination)
{
    const struct phase_memory *memory = context;
    copy_device_bytes((char *)destination, input, elements * memory->element_bytes);
}

/* One member's run: what it was given, and what it gave back. */
struct run {
    int calls;
    unsigned long long *d_results;
    unsigned long long *expected, *got; /* host: calls x counters */
    unsigned char tails[2][16];         /* the copy: its last input's last bytes, and the copy's */
    void *host_sample;                  /* a CPU contender's input */
    uint64_t host_sample_elements;
};

/* The run's inputs, made from seed, and their expected results; its results poisoned. With
 * kept_expected, the inputs are the last run's, left in place, and kept_expected their results
 * (a trusted contender's runs that are not scored: run_phase). */
static void prepare_run(struct phase_memory *memory, const struct timed_contender *contender,
                        bool is_copy, int calls, uint64_t seed,
                        const unsigned long long *kept_expected, struct run *run)
{
    const struct speed_workload *workload = memory->workload;
    const unsigned int counters = workload->result_counters;
    memset(run, 0, sizeof *run);
    run->calls = calls;
    run->d_results = memory->d_results;
    size_t bytes = result_bytes(workload, run->calls);
    run->expected = grading_malloc(bytes);
    run->got = grading_malloc(bytes);
    if (kept_expected) {
        memcpy(run->expected, kept_expected, bytes);
    } else if (workload->elements) {
        /* The contender's calls' inputs alone: the same work before every contender's clock. */
        make_timed_inputs(memory->source, seed, memory->d_inputs, memory->stride, run->calls,
                          workload->elements, memory->d_expected);
        CUDA_CHECK(cudaMemcpy(run->expected, memory->d_expected, bytes, cudaMemcpyDeviceToHost));
        /* No worker is handed d_expected, but a small allocation may share a block of the
         * driver's with one that is (CUDA IPC then maps the whole block): the answers are not
         * left on the GPU while the code under test runs. */
        CUDA_CHECK(cudaMemset(memory->d_expected, 0, bytes));
    } else {
        for (int k = 0; k < run->calls; k++)
            workload->expected_without_input(workload, run->expected + (size_t)k * counters);
    }
    uint64_t input_bytes = workload->elements * memory->element_bytes;
    if (is_copy && input_bytes >= 16) {
        const char *last = (const char *)memory->d_inputs + (run->calls - 1) * memory->stride;
        CUDA_CHECK(cudaMemcpy(run->tails[0], last + input_bytes - 16, 16, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemset(memory->d_copy + input_bytes - 16, 0, 16));
    } else if (contender->on_host) {
        run->host_sample_elements = workload->host_sample_elements < workload->elements
                                        ? workload->host_sample_elements
                                        : workload->elements;
        run->host_sample = grading_malloc(run->host_sample_elements * memory->element_bytes);
        CUDA_CHECK(cudaMemcpy(run->host_sample, memory->d_inputs,
                              run->host_sample_elements * memory->element_bytes,
                              cudaMemcpyDeviceToHost));
        workload->host_histogram(run->host_sample, run->host_sample_elements, run->expected);
    } else if (!is_copy) {
        CUDA_CHECK(cudaMemset(run->d_results, workload->result_initial_byte, bytes));
    }
}

static void finish_run(struct run *run)
{
    free(run->expected);
    free(run->got);
    free(run->host_sample);
}

static bool results_are_right(const struct speed_workload *workload,
                              const struct timed_contender *contender, const struct run *run,
                              int calls)
{
    unsigned int counters = workload->result_counters;
    bool (*check)(const unsigned long long *, const unsigned long long *, unsigned int) =
        contender->result_is_right ? contender->result_is_right : workload->result_is_right;
    for (int k = 0; k < calls; k++) {
        const unsigned long long *got = run->got + (size_t)k * counters,
                                 *expected = run->expected + (size_t)k * counters;
        bool right = check ? check(got, expected, counters)
                           : memcmp(got, expected, counters * sizeof *got) == 0;
        if (!right)
            return false;
    }
    return true;
}

/* Reads every call's result as this process sees it now; true when all are right. */
static bool read_results(const struct phase_memory *memory,
                         const struct timed_contender *contender, struct run *run, bool is_copy)
{
    const struct speed_workload *workload = memory->workload;
    if (is_copy) {
        uint64_t bytes = workload->elements * memory->element_bytes;
        if (bytes < 16)
            return true;
        CUDA_CHECK(cudaMemcpy(run->tails[1], memory->d_copy + bytes - 16, 16,
                              cudaMemcpyDeviceToHost));
        return memcmp(run->tails[0], run->tails[1], 16) == 0;
    }
    CUDA_CHECK(cudaMemcpy(run->got, run->d_results, result_bytes(workload, run->calls),
                          cudaMemcpyDeviceToHost));
    return results_are_right(workload, contender, run, run->calls);
}

/* A contender's calls go to the worker of its phase: the student's alone to the student's. */
static enum crossing_target worker_of(const struct timed_contender *contender, bool is_copy)
{
    return contender->student && !is_copy ? CROSSING_STUDENT : CROSSING_REFERENCE;
}

static void require_phase(const struct timed_contender *contender, bool is_copy)
{
    cr_assert(crossing_batch_target() == (int)worker_of(contender, is_copy),
              "grader defect: %s is timed as %s code, but its calls go to the other worker",
              contender->label, contender->student ? "the student's" : "trusted");
}

/* Before a run: the contender's worker held (crossing.h), so that nothing it left running can
 * run on, and nothing can start, while its inputs are made. */
static void hold_worker_of(const struct timed_contender *contender, bool is_copy)
{
    enum crossing_target target = worker_of(contender, is_copy);
    char why[256];
    if (crossing_hold_worker(target, CROSSING_HOLD_TIMEOUT_MS, why, sizeof why))
        return;
    if (target == CROSSING_STUDENT)
        cr_assert_fail("%s: %s.", contender->label, why);
    cr_assert_fail("the grader could not hold the references' worker between timed runs: %s",
                   why);
}

/* One timed run: the calls sent together to the contender's worker, the clock running from the
 * request until this process has read back every result. Returns the milliseconds; *right says
 * whether every result was right at that one reading. */
/* GRADE_SPEED_TRACE: where a grading's time goes, step by step (the kit's own measurements). */
enum step { STEP_HOLD, STEP_PREPARE, STEP_CLEAN, STEP_QUEUE, STEP_REQUEST, STEP_VERIFY, STEPS };
static double step_ms[STEPS];
static const char *const step_names[STEPS] = {"hold", "prepare", "clean", "queue", "request",
                                              "verify"};

/* GRADE_SPEED_TRACE: a GPU run's request in parts, in ms from the request: when the driver's
 * unlock of its worker returned (-1: not held), when its first and its last launch were told
 * (-1: it launched nothing, as the copy), its answer came and the worker was stopped, and its
 * results were read (the run's time). With the processes on one CPU (one_cpu.h) the grader marks
 * a part when it next runs, which is once the worker waits: only the answer and the read hold. */
enum request_part { UNLOCKED, FIRST_LAUNCH, LAST_LAUNCH, ANSWERED, READ, REQUEST_PARTS };
static const char *const request_part_names[REQUEST_PARTS] = {"unlocked", "first launch",
                                                              "last launch", "answer", "read"};
struct request_parts {
    double ms[REQUEST_PARTS];
    double at_ms; /* when the request was sent, on CLOCK_MONOTONIC: to set runs beside samples
                     of the GPU's clocks taken by another process */
};

/* The inputs of a trusted contender's unscored runs, made for the first and kept for the next:
 * nothing but trusted code is alive in the last trusted phase, and making them anew,
 * most of a run's time, bought nothing. */
struct kept_inputs {
    unsigned long long *expected; /* host: the first run's calls x counters; NULL before it */
};

static double timed_run(struct phase_memory *memory, const struct timed_contender *contender,
                        bool is_copy, int calls, uint64_t seed, bool *right,
                        unsigned long long *shown, struct request_parts *parts, double *gpu_ms,
                        struct kept_inputs *kept)
{
    /* gpu_ms: NULL for a scored run; else the run is a trusted one, its calls timed on the GPU
     * too (crossing_batch_run_timed_on_gpu), and *gpu_ms gets that time (-1: none). kept: NULL
     * but for those runs, whose inputs it keeps where the phase's memory outlives a run. */
    if (gpu_ms)
        *gpu_ms = -1.0;
    const struct speed_workload *workload = memory->workload;
    double mark = now_ms();
    if (memory->each_run)
        allocate_phase_memory(memory);
    else
        hold_worker_of(contender, is_copy);
    step_ms[STEP_HOLD] += now_ms() - mark, mark = now_ms();
    struct run run;
    const bool keeps = kept && !memory->each_run;
    prepare_run(memory, contender, is_copy, calls, seed, keeps ? kept->expected : NULL, &run);
    if (keeps && !kept->expected) {
        size_t bytes = result_bytes(memory->workload, calls);
        kept->expected = grading_malloc(bytes);
        memcpy(kept->expected, run.expected, bytes);
    }
    step_ms[STEP_PREPARE] += now_ms() - mark, mark = now_ms();
    CUDA_CHECK(cudaDeviceSynchronize());
    leave_l2_clean(memory->cleaner);
    step_ms[STEP_CLEAN] += now_ms() - mark, mark = now_ms();

    double elapsed = 0.0;
    crossing_batch_begin();
    if (contender->on_host) {
        contender->call(contender->context, run.host_sample, run.host_sample_elements, run.got);
        require_phase(contender, false);
        elapsed = crossing_batch_run(); /* host memory comes back with the answer */
        *right = results_are_right(workload, contender, &run, 1);
    } else {
        unsigned int counters = workload->result_counters;
        for (int k = 0; k < run.calls; k++) {
            const char *input = (const char *)memory->d_inputs + (uint64_t)k * memory->stride;
            unsigned long long *result = is_copy ? (unsigned long long *)memory->d_copy
                                                 : run.d_results + (size_t)k * counters;
            contender->call(contender->context, input, workload->elements, result);
        }
        require_phase(contender, is_copy);
        step_ms[STEP_QUEUE] += now_ms() - mark, mark = now_ms();
        double sent_at = mark;
        double request_ms = gpu_ms ? crossing_batch_run_timed_on_gpu() : crossing_batch_run();
        double answered = now_ms();
        step_ms[STEP_REQUEST] += answered - mark;
        if (gpu_ms)
            (void)crossing_last_request_gpu_ms(gpu_ms);
        /* One reading, right after the answer: a function's work is done when it returns, so
         * its result is there then. Reading again until it came right would let an answer sent
         * before the work ended (the worker's wait switched off from inside it) overlap the
         * work with the readings, and gain the time of the wait. */
        *right = read_results(memory, contender, &run, is_copy);
        elapsed = crossing_ms_since_last_request(); /* one clock, from before the resuming */
        step_ms[STEP_VERIFY] += now_ms() - answered;
        if (parts) {
            *parts = (struct request_parts){
                {crossing_last_request_unlocked_ms(), -1.0, -1.0, request_ms, elapsed}, sent_at};
            (void)crossing_last_request_launch_times(&parts->ms[FIRST_LAUNCH],
                                                     &parts->ms[LAST_LAUNCH]);
        }
        char why[300];
        if (contender->student && !is_copy && contender->launches_are_right &&
            !contender->launches_are_right(contender->context, run.calls, why, sizeof why))
            cr_assert_fail("%s, on a timed run: %s", contender->label, why);
    }
    if (shown && !is_copy)
        memcpy(shown, run.got,
               (workload->result_counters < 4 ? workload->result_counters : 4) * sizeof *shown);
    finish_run(&run);
    if (memory->each_run)
        free_phase_memory(memory);
    return elapsed;
}

/* Everything one measurement gathers, by contender c (its index among all, the copy last) and
 * input i: samples[c][i * timed_runs + r] the time of scored run r, gpu_samples[c][i *
 * KERNELS_ALONE_RUNS + k] the GPU's time of kernels-alone run k, traced[c] (GRADE_SPEED_TRACE)
 * each scored run's parts, calls[i][c] its calls a run, wrong[i][c] its wrong runs, shown[c] its
 * last result. */
struct measurement {
    int timed_runs;
    double *samples[MAX_TIMED_CONTENDERS + 1], *gpu_samples[MAX_TIMED_CONTENDERS + 1];
    struct request_parts *traced[MAX_TIMED_CONTENDERS + 1];
    int calls[MAX_TIMED_INPUTS][MAX_TIMED_CONTENDERS + 1];
    int wrong[MAX_TIMED_INPUTS][MAX_TIMED_CONTENDERS + 1];
    unsigned long long shown[MAX_TIMED_CONTENDERS + 1][4];
};

/* One phase: its members (contender indices), the inputs, and the scored runs of each input it
 * makes. */
struct phase_plan {
    int member_count;
    int members[MAX_TIMED_CONTENDERS + 1];
    const struct timed_contender *const *all;
    const bool *is_copy;
    int input_count;
    const struct timed_source *sources; /* an input's (NULL for a workload without inputs) */
    uint64_t grading_seed;
    int first_run, runs;
    int phase; /* its place in the measurement: the warm-ups' seeds */
    bool deciding;
    int kernel_runs;
};

/* A phase's runs, member by member: a warm-up, then the member's timed runs, the inputs taken
 * in turn (run r of every input, then run r + 1 of every input), so that every timed run follows
 * a run of the same code, in the student's phases and in the references' alike (alternated run by
 * run, the lab 3 reference followed the lab 2 reference's 50 ms of atomics on one address and read
 * 2-4% slower than the same code timed alone: docs/results/h100/ratio-sweep-2026-11-25c.log), and
 * so that an input's runs are spread over the member's whole part of the phase, not bunched where
 * the run's fixed cost happened to sit at one level (speed.h).
 * Every scored run of every contender makes inputs of its own (its seed names the contender, the
 * input and the run), while every worker is held (or in memory of its own, where none can be), by
 * the same steps just before its clock starts: no function can hand back an answer it gave another
 * function, and a run never finds its inputs made by other steps than another's (identical code
 * must read 1.00). A member's calls a run on each input (measured->calls) are its warm-ups'
 * decision where the plan is `deciding` (speed_calls_on_input): a member that decides warms up on
 * every input, with one call, any other on the first input alone. Where kernel_runs is not 0,
 * each trusted GPU member then makes kernel_runs more runs on each input, not scored, its calls
 * timed on the GPU too (measured->gpu_samples). */
static const struct timed_source *source_of(const struct phase_plan *plan, int input)
{
    return plan->sources ? &plan->sources[input] : NULL;
}

static void run_phase(struct phase_memory *memory, const struct phase_plan *plan,
                      struct measurement *measured)
{
    for (int m = 0; m < plan->member_count; m++) {
        const int c = plan->members[m];
        const struct timed_contender *member = plan->all[c];
        const bool decides = plan->deciding && (member->one_call_when_slow || member->fills_runs);
        for (int i = 0; i < (decides ? plan->input_count : 1); i++) {
            memory->source = source_of(plan, i);
            uint64_t seed = run_seed(plan->grading_seed, c, i, WARM_UP_RUN_IDS + plan->phase);
            bool right = true;
            /* A warm-up that decides is one call: a slow baseline's declared calls would cost
             * its slow inputs' time several times over, for nothing. */
            double ms = timed_run(memory, member, plan->is_copy[c],
                                  decides ? 1 : measured->calls[i][c], seed, &right,
                                  measured->shown[c], NULL, NULL, NULL);
            if (!right)
                measured->wrong[i][c]++;
            if (decides)
                measured->calls[i][c] =
                    member->fills_runs ? speed_calls_to_fill_run(measured->calls[i][c], ms)
                                       : speed_calls_on_input(measured->calls[i][c], true, ms);
        }
        for (int run = plan->first_run; run < plan->first_run + plan->runs; run++)
            for (int i = 0; i < plan->input_count; i++) {
                memory->source = source_of(plan, i);
                bool right = true;
                size_t at = (size_t)i * measured->timed_runs + run;
                struct request_parts *parts = measured->traced[c] ? &measured->traced[c][at] : NULL;
                measured->samples[c][at] =
                    timed_run(memory, member, plan->is_copy[c], measured->calls[i][c],
                              run_seed(plan->grading_seed, c, i, run + 1), &right,
                              measured->shown[c], parts, NULL, NULL);
                if (!right)
                    measured->wrong[i][c]++;
            }
    }
    /* The trusted members' kernels alone, on runs of their own after the scored ones (seeds past
     * every scored run's): what a table shows beside a reference's rate, never a score. */
    for (int m = 0; m < plan->member_count; m++) {
        const int c = plan->members[m];
        for (int i = 0; i < plan->input_count; i++) {
            memory->source = source_of(plan, i);
            struct kept_inputs kept = {NULL};
            double *gpu_ms = measured->gpu_samples[c] + (size_t)i * KERNELS_ALONE_RUNS;
            for (int k = 0; k < plan->kernel_runs; k++) {
                gpu_ms[k] = -1.0;
                if (plan->all[c]->student || plan->all[c]->on_host)
                    continue;
                bool right = true;
                (void)timed_run(memory, plan->all[c], plan->is_copy[c], measured->calls[i][c],
                                run_seed(plan->grading_seed, c, i, KERNELS_ALONE_RUN_IDS + k),
                                &right, measured->shown[c], NULL, &gpu_ms[k], &kept);
                if (!right)
                    measured->wrong[i][c]++;
            }
            free(kept.expected);
        }
    }
}

/* The medians of runs' request parts, to end a trace line. */
static void print_request_parts(const struct request_parts *parts, int runs)
{
    double *values = grading_malloc((size_t)runs * sizeof *values);
    printf(" | medians:");
    for (int part = 0; part < REQUEST_PARTS; part++) {
        for (int r = 0; r < runs; r++)
            values[r] = parts[r].ms[part];
        printf(" %s %.4f", request_part_names[part], median_of(values, (size_t)runs));
    }
    /* Each run's parts beside its time: which part a slow run's time went to. */
    printf(" | each run, unlocked/first launch/last launch/answer:");
    for (int r = 0; r < runs; r++)
        printf(" %.3f/%.3f/%.3f/%.3f", parts[r].ms[UNLOCKED], parts[r].ms[FIRST_LAUNCH],
               parts[r].ms[LAST_LAUNCH], parts[r].ms[ANSWERED]);
    printf(" | each run's request sent at (ms, CLOCK_MONOTONIC):");
    for (int r = 0; r < runs; r++)
        printf(" %.3f", parts[r].at_ms);
    printf("\n");
    free(values);
}

double speed_kernel_ms(double *gpu_samples, size_t runs, int calls)
{
    if (runs == 0 || calls < 1)
        return 0.0;
    for (size_t r = 0; r < runs; r++)
        if (!(gpu_samples[r] > 0.0))
            return 0.0;
    return median_of(gpu_samples, runs) / calls;
}

int speed_student_phases_asked(const char *asked)
{
    if (!asked || !*asked)
        return SPEED_STUDENT_PHASES;
    if (*asked < '0' || *asked > '9')
        return 0;
    char *end;
    long phases = strtol(asked, &end, 10);
    return *end == '\0' && phases >= 1 && phases <= SPEED_MOST_STUDENT_PHASES ? (int)phases : 0;
}

int speed_student_phases(void)
{
    const char *asked = getenv("GRADE_SPEED_STUDENT_PHASES");
    int phases = speed_student_phases_asked(asked);
    cr_assert(phases > 0,
              "GRADE_SPEED_STUDENT_PHASES must be a whole number from 1 to %d, not '%s'",
              SPEED_MOST_STUDENT_PHASES, asked);
    return phases;
}

int speed_phase_runs(int timed_runs, int phase, int student_phases, int *first_run)
{
    /* The k-th of its kind's phases, of `of`. */
    const int k = phase / 2, of = phase % 2 ? student_phases : student_phases + 1;
    *first_run = timed_runs * k / of;
    return timed_runs * (k + 1) / of - *first_run;
}

int speed_default_calls(uint64_t call_bytes)
{
    uint64_t calls = TIMED_RUN_BYTES / (call_bytes ? call_bytes : 1);
    return calls < 1 ? 1 : calls > MAX_DEFAULT_CALLS ? MAX_DEFAULT_CALLS : (int)calls;
}

/* GRADE_RUNS, raised to the workload's fewest and to TIMING_MIN_RUNS. */
static int timed_runs_of(const struct speed_workload *workload)
{
    int runs = grading_options().timed_runs;
    if (runs < workload->min_timed_runs)
        runs = workload->min_timed_runs;
    return runs < TIMING_MIN_RUNS ? TIMING_MIN_RUNS : runs;
}

void print_timing_method(const struct speed_workload *workload,
                         const struct timed_contender *contenders, int count)
{
    struct gpu_facts gpu = gpu_facts();
    /* The student's calls a run (the first student's function shown), and each other GPU
     * contender's where they differ: a run's fixed cost weighs on a call as 1 / its calls. */
    int calls = workload->default_calls;
    bool filled = false; /* the student's calls are its reference's, decided input by input */
    for (int c = count - 1; c >= 0; c--)
        if (contenders[c].student && !contenders[c].on_host) {
            calls = calls_of(workload, &contenders[c]);
            filled = contenders[c].calls_from != 0;
        }
    char others[400] = "";
    size_t used = 0;
    for (int c = 0; c < count && used < sizeof others - 120; c++) {
        if (contenders[c].on_host || contenders[c].student)
            continue;
        int its = calls_of(workload, &contenders[c]);
        if (its == calls && !contenders[c].one_call_when_slow && contenders[c].fills_runs == filled)
            continue;
        used += (size_t)snprintf(others + used, sizeof others - used, "%s%s: %d", used ? "; " : "",
                                 contenders[c].label, its);
        if (contenders[c].one_call_when_slow)
            used += (size_t)snprintf(others + used, sizeof others - used, ", or one where its "
                                     "call takes %.0f ms or more", SPEED_SLOW_CALL_MS);
        else if (contenders[c].fills_runs)
            used += (size_t)snprintf(others + used, sizeof others - used, " at most, as many as "
                                     "make a run of %.0f ms", SPEED_RUN_MS);
    }
    char run_calls[160];
    if (filled)
        snprintf(run_calls, sizeof run_calls, "as many calls as make the reference's run last "
                 "%.0f ms, at most %d, the same for yours (decided on each input by the "
                 "reference's warm-up)", SPEED_RUN_MS, calls);
    else
        snprintf(run_calls, sizeof run_calls, "%d call%s", calls, calls == 1 ? "" : "s");
    printf("  on %s (compute capability %d.%d, %d multiprocessors, %d MB of L2 cache); each time "
           "the median of %d timed runs, a warm-up opening each phase; a run is %s%s%s%s, each "
           "on an input of its own made fresh on the GPU for that run, timed from the request to "
           "the moment the grader has read back every result right; your functions are timed "
           "alone, in %d phases of their own between the references' and the copy's\n",
           gpu.name, gpu.major, gpu.minor, gpu.multiprocessors, gpu.l2_cache_bytes >> 20,
           timed_runs_of(workload), run_calls, used ? " (" : "", others,
           used ? ")" : "", speed_student_phases());
}

void time_contenders(const struct speed_workload *workload, const struct timed_contender *contenders,
                     int count, struct speed_results *results)
{
    struct grading_options options = grading_options();
    cr_assert(count < MAX_TIMED_CONTENDERS && workload->input_count <= MAX_TIMED_INPUTS,
              "grader defect: too many contenders or inputs to time");
    const int timed_runs = timed_runs_of(workload);
    memset(results, 0, sizeof *results);
    results->input_count = workload->input_count;

    const size_t element_bytes = timed_format_element_bytes(workload->format);
    const uint64_t stride = workload->elements
                                ? (workload->elements * element_bytes + INPUT_ALIGNMENT - 1) /
                                      INPUT_ALIGNMENT * INPUT_ALIGNMENT
                                : INPUT_ALIGNMENT;
    /* No student's worker alive beside the references' while they are timed: the references'
     * may then be traceable, as the driver's process lock needs (crossing.h). */
    crossing_end_worker(CROSSING_STUDENT);
    /* Index count is the copy: trusted, of the workload's calls. */
    struct phase_memory memory = {.workload = workload, .element_bytes = element_bytes,
                                  .stride = stride, .each_run = !crossing_can_hold_workers()};
    struct timed_contender copy = {.label = "copy", .call = call_copy, .context = &memory};
    const struct timed_contender *all[MAX_TIMED_CONTENDERS + 1];
    bool is_copy[MAX_TIMED_CONTENDERS + 1];
    int total = count + (workload->elements ? 1 : 0);
    for (int c = 0; c < total; c++) {
        all[c] = c < count ? &contenders[c] : &copy;
        is_copy[c] = c == count;
    }

    int most_calls = 1;
    for (int c = 0; c < total; c++)
        if (calls_of(workload, all[c]) > most_calls)
            most_calls = calls_of(workload, all[c]);
    /* The most a phase holds: the inputs and the copy's destination, the results, the L2
     * cleaner's scratch (twice the cache), and room for the code under test's own. */
    struct gpu_facts gpu = gpu_facts();
    uint64_t needed = (uint64_t)(most_calls + 1) * stride + 2 * (uint64_t)gpu.l2_cache_bytes +
                      (512ull << 20);
    if (gpu.free_memory_bytes < needed) {
        char reason[200];
        snprintf(reason, sizeof reason, "the speed test needs %" PRIu64 " MiB of GPU memory free "
                 "and this GPU has %zu MiB", needed >> 20, gpu.free_memory_bytes >> 20);
        record_current_test(TEST_NEEDS_GPU, reason);
        cr_skip_test("%s", reason);
    }

    struct measurement *measured = grading_malloc(sizeof *measured);
    memset(measured, 0, sizeof *measured);
    measured->timed_runs = timed_runs;
    const bool tracing = getenv("GRADE_SPEED_TRACE") != NULL;
    for (int c = 0; c < total; c++) {
        measured->samples[c] =
            grading_malloc((size_t)workload->input_count * timed_runs * sizeof(double));
        measured->gpu_samples[c] =
            grading_malloc((size_t)workload->input_count * KERNELS_ALONE_RUNS * sizeof(double));
        if (tracing) { /* zeroed: a CPU contender's runs have no request parts to fill in */
            size_t bytes =
                (size_t)workload->input_count * timed_runs * sizeof(struct request_parts);
            measured->traced[c] = grading_malloc(bytes);
            memset(measured->traced[c], 0, bytes);
        }
    }
    /* calls[i][c]: contender c's calls a run on input i, decided in the first trusted phase (where
     * no code under test is alive) and kept for the next. */
    for (int i = 0; i < workload->input_count; i++)
        for (int c = 0; c < total; c++)
            measured->calls[i][c] = calls_of(workload, all[c]);
    struct timed_source sources[MAX_TIMED_INPUTS] = {0};
    for (int i = 0; i < workload->input_count && workload->open_input; i++)
        workload->open_input(workload, i, results->input_names[i], sizeof results->input_names[i],
                             &sources[i]);
    struct l2_cleaner cleaner = l2_cleaner_create();
    memory.cleaner = &cleaner;
    memory.results_block_bytes = block_of_its_own(result_bytes(workload, most_calls));
    CUDA_CHECK(cudaMalloc((void **)&memory.d_results, memory.results_block_bytes));

    /* Trusted phases and the student's by turns, the student's worker ended after each of its own
     * (speed.h): phase p is the student's where p is odd. */
    const int student_phases = speed_student_phases();
    const int phase_count = 2 * student_phases + 1;
    for (int phase = 0; phase < phase_count; phase++) {
        const bool students = phase % 2 == 1;
        struct phase_plan plan = {.all = all, .is_copy = is_copy,
                                  .input_count = workload->input_count,
                                  .sources = workload->open_input ? sources : NULL,
                                  .grading_seed = options.seed, .phase = phase,
                                  .deciding = phase == 0,
                                  .kernel_runs = phase == phase_count - 1 ? KERNELS_ALONE_RUNS : 0};
        plan.runs = speed_phase_runs(timed_runs, phase, student_phases, &plan.first_run);
        memory.calls = 1;
        for (int c = 0; c < total; c++)
            if ((c < count && contenders[c].student) == students) {
                plan.members[plan.member_count++] = c;
                if (calls_of(workload, all[c]) > memory.calls)
                    memory.calls = calls_of(workload, all[c]);
            }
        if (plan.member_count == 0)
            continue;
        /* Each phase has memory of its own: the student's worker never sees the references'. */
        if (!memory.each_run)
            allocate_phase_memory(&memory);
        CUDA_CHECK(cudaMemset(memory.d_results, workload->result_initial_byte,
                              memory.results_block_bytes));
        run_phase(&memory, &plan, measured);
        /* The calls this first trusted phase decided, for the student's functions that take their
         * reference's (calls_from), once for all the student's phases. */
        if (plan.deciding)
            for (int c = 0; c < count; c++)
                if (contenders[c].calls_from) {
                    int from = contenders[c].calls_from - 1;
                    cr_assert(from < count && !contenders[from].student &&
                                  calls_of(workload, &contenders[from]) ==
                                      calls_of(workload, &contenders[c]),
                              "grader defect: %s takes the calls of a contender that is not a "
                              "trusted one of as many calls", contenders[c].label);
                    for (int i = 0; i < workload->input_count; i++)
                        measured->calls[i][c] = measured->calls[i][from];
                }
        /* Nothing of the student's code outlives its phase: its process and its CUDA context end
         * here, with whatever it left running on the GPU. */
        if (students)
            crossing_end_worker(CROSSING_STUDENT);
        if (!memory.each_run)
            free_phase_memory(&memory);
    }
    for (int i = 0; i < workload->input_count && workload->open_input; i++)
        timed_source_destroy(&sources[i]);
    for (int c = 0; c < count; c++)
        memcpy(results->last_results[c], measured->shown[c], sizeof measured->shown[c]);
    l2_cleaner_destroy(&cleaner);
    CUDA_CHECK(cudaFree(memory.d_results));

    /* GRADE_SPEED_TRACE=1 (the kit's own measurements of the grader): every run's time, and the
     * medians of its request's parts (struct request_parts). */
    if (tracing) {
        printf("trace: steps (ms, all runs):");
        for (int step = 0; step < STEPS; step++)
            printf(" %s %.1f", step_names[step], step_ms[step]);
        printf(" (of hold: the student's worker's starts %.1f)\n",
               crossing_worker_start_ms(CROSSING_STUDENT));
        for (int i = 0; i < workload->input_count; i++)
            for (int c = 0; c < total; c++) {
                printf("trace: %s | %s | calls %d |", results->input_names[i], all[c]->label,
                       measured->calls[i][c]);
                for (int r = 0; r < timed_runs; r++)
                    printf(" %.4f", measured->samples[c][(size_t)i * timed_runs + r]);
                print_request_parts(measured->traced[c] + (size_t)i * timed_runs, timed_runs);
            }
    }
    for (int i = 0; i < workload->input_count; i++) {
        double copy_ms = 0.0;
        if (workload->elements) {
            copy_ms = median_of(measured->samples[count] + (size_t)i * timed_runs,
                                (size_t)timed_runs) /
                      measured->calls[i][count];
            results->copy_ms[i] = copy_ms;
            results->copy_kernel_ms[i] =
                speed_kernel_ms(measured->gpu_samples[count] + (size_t)i * KERNELS_ALONE_RUNS,
                                KERNELS_ALONE_RUNS, measured->calls[i][count]);
        }
        for (int c = 0; c < count; c++) {
            double *runs = measured->samples[c] + (size_t)i * timed_runs;
            double ms;
            if (contenders[c].on_host)
                ms = fastest_of(runs, (size_t)timed_runs) *
                     ((double)workload->elements /
                      (double)(workload->host_sample_elements < workload->elements
                                   ? workload->host_sample_elements
                                   : workload->elements));
            else {
                ms = median_of(runs, (size_t)timed_runs) / measured->calls[i][c];
                if (!contenders[c].student)
                    results->kernel_ms[i * MAX_TIMED_CONTENDERS + c] =
                        speed_kernel_ms(measured->gpu_samples[c] + (size_t)i * KERNELS_ALONE_RUNS,
                                        KERNELS_ALONE_RUNS, measured->calls[i][c]);
            }
            results->contender_ms[i * MAX_TIMED_CONTENDERS + c] = ms;
            cr_expect(measured->wrong[i][c] == 0,
                      "%s gave a wrong result in %d of its timed runs on %s (seed %" PRIu64 "): "
                      "the result must be right on every call (every scored run's inputs are new). "
                      "Look for state left from an earlier call, a result kept from one, a race, "
                      "or a result not ready when the function returns.",
                      contenders[c].label, measured->wrong[i][c], results->input_names[i],
                      options.seed);
            uint64_t bytes = workload->elements * element_bytes;
            if (workload->elements && !contenders[c].on_host && bytes >= (1u << 20)) {
                double percent = percent_of_copy_bandwidth(bytes, ms, bytes, copy_ms);
                cr_expect(percent <= MAX_PERCENT_OF_COPY,
                          "%s read %s at %.0f%% of the bandwidth of a device-to-device copy: "
                          "faster than the memory allows (at most %d%%). A histogram must read "
                          "every element of its input on every call.",
                          contenders[c].label, results->input_names[i], percent,
                          MAX_PERCENT_OF_COPY);
            }
        }
    }
    for (int c = 0; c < total; c++) {
        free(measured->samples[c]);
        free(measured->gpu_samples[c]);
        free(measured->traced[c]);
    }
    free(measured);
}
