#include "guarded_runs.h"

#include "crossing.h"
#include "cuda_check.h"
#include "grading.h"
#include "inputs.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

/* Where an input's parts lie in its layout: [lead guard][fill][elements][trail guard]. */
struct layout_plan {
    uint64_t lead, fill_bytes, element_bytes, trail, total;
};

static struct layout_plan plan_of(const struct guard_policy *policy,
                                  const struct guarded_input *input)
{
    struct layout_plan plan;
    plan.lead = policy->input_guard_bytes + input->offset;
    plan.fill_bytes = input->fill_count * policy->element_bytes;
    plan.element_bytes = input->count * policy->element_bytes;
    plan.trail = policy->input_guard_bytes;
    plan.total = plan.lead + plan.fill_bytes + plan.element_bytes + plan.trail;
    return plan;
}

/* bytes of guard elements, as if the layout were tiled with them from its first byte: `at` is
 * where they start in it (a 32-bit guard keeps its phase past an input of any length). */
static void write_guard(const struct guard_policy *policy, uint8_t *to, uint64_t at,
                        uint64_t bytes)
{
    uint8_t element[sizeof(uint32_t)];
    if (policy->element_bytes == 1)
        element[0] = (uint8_t)policy->guard_element;
    else
        memcpy(element, &policy->guard_element, sizeof element);
    for (uint64_t i = 0; i < bytes; i++)
        to[i] = element[(at + i) % policy->element_bytes];
}

/* The whole layout in host memory (malloc'ed), fill included. */
static uint8_t *host_layout(const struct guard_policy *policy, const struct guarded_input *input,
                            const struct layout_plan *plan)
{
    uint8_t *layout = grading_malloc(plan->total);
    write_guard(policy, layout, 0, plan->lead);
    memset(layout + plan->lead, input->fill_byte, plan->fill_bytes);
    if (plan->element_bytes > 0)
        memcpy(layout + plan->lead + plan->fill_bytes, input->elements, plan->element_bytes);
    write_guard(policy, layout + plan->total - plan->trail, plan->total - plan->trail,
                plan->trail);
    return layout;
}

/* The byte the bins are poisoned with on run `run`: POISON_BYTE with its low seven bits changed
 * by the grading's seed and the run, so that no constant taken from the bins instead of zeroing
 * them comes out right (a run still repeats with its --seed). */
static unsigned char poison_byte(int run)
{
    uint64_t state = grading_options().seed + (uint64_t)run;
    return (unsigned char)(POISON_BYTE ^ (splitmix64(&state) >> 57));
}

/* The counters: guards, then the bins poisoned, then guards. */
static void poison(const struct guard_policy *policy, unsigned long long *all, int run)
{
    const unsigned int counters = policy->bins + 2 * policy->bin_guard_counters;
    for (unsigned int c = 0; c < counters; c++)
        all[c] = BIN_GUARD_VALUE;
    memset(all + policy->bin_guard_counters, poison_byte(run), policy->bins * sizeof *all);
}

/* Records the run's bins, and whether every guard counter held. */
static void record_run(const struct guard_policy *policy, const unsigned long long *all,
                       struct guarded_outcome *outcome)
{
    const int guards = (int)policy->bin_guard_counters, bins = (int)policy->bins;
    memcpy(outcome->runs[outcome->runs_done++], all + guards, policy->bins * sizeof *all);
    for (int c = 0; c < bins + 2 * guards && outcome->inside; c++) {
        bool is_bin = c >= guards && c < guards + bins;
        if (!is_bin && all[c] != BIN_GUARD_VALUE) {
            outcome->inside = false;
            outcome->changed_counter = c - guards;
        }
    }
}

static void start_outcome(const struct guard_policy *policy, struct guarded_outcome *outcome)
{
    cr_assert(policy->bins <= GUARDED_MAX_BINS &&
                  policy->bin_guard_counters <= GUARDED_MAX_BIN_GUARDS &&
                  (policy->element_bytes == 1 || policy->element_bytes == sizeof(uint32_t)),
              "grader: a guard policy of %u bins, %u guard counters, %zu-byte elements",
              policy->bins, policy->bin_guard_counters, policy->element_bytes);
    outcome->runs_done = 0;
    outcome->inside = true;
    outcome->changed_counter = 0;
    outcome->input_unchanged = true;
}

void guarded_runs_on_gpu(const struct guard_policy *policy, const struct guarded_input *input,
                         int runs, bool check_input, guarded_call *call, void *context,
                         struct guarded_outcome *outcome)
{
    start_outcome(policy, outcome);
    cr_assert(runs >= 1 && runs <= CHECK_RUNS && (input->fill_count == 0 || policy->element_bytes == 1),
              "grader: %d runs, a fill of %zu-byte elements", runs, policy->element_bytes);
    const struct layout_plan plan = plan_of(policy, input);
    const size_t counters = policy->bins + 2 * policy->bin_guard_counters;
    unsigned long long all[GUARDED_MAX_BINS + 2 * GUARDED_MAX_BIN_GUARDS];

    uint8_t *d_layout = NULL;
    unsigned long long *d_all = NULL;
    CUDA_CHECK(cudaMalloc((void **)&d_layout, plan.total));
    CUDA_CHECK(cudaMalloc((void **)&d_all, counters * sizeof *d_all));
    /* The guards and the elements from the host, the fill (gigabytes, maybe) written here. */
    uint8_t *guard = grading_malloc(plan.lead > plan.trail ? plan.lead : plan.trail);
    write_guard(policy, guard, 0, plan.lead);
    CUDA_CHECK(cudaMemcpy(d_layout, guard, plan.lead, cudaMemcpyHostToDevice));
    write_guard(policy, guard, plan.total - plan.trail, plan.trail);
    CUDA_CHECK(cudaMemcpy(d_layout + plan.total - plan.trail, guard, plan.trail,
                          cudaMemcpyHostToDevice));
    free(guard);
    uint8_t *d_input = d_layout + plan.lead;
    if (plan.fill_bytes > 0)
        CUDA_CHECK(cudaMemset(d_input, input->fill_byte, plan.fill_bytes));
    if (plan.element_bytes > 0)
        CUDA_CHECK(cudaMemcpy(d_input + plan.fill_bytes, input->elements, plan.element_bytes,
                              cudaMemcpyHostToDevice));

    const uint64_t count = input->fill_count + input->count;
    for (int run = 0; run < runs && outcome->inside; run++) {
        poison(policy, all, run);
        CUDA_CHECK(cudaMemcpy(d_all, all, counters * sizeof *all, cudaMemcpyHostToDevice));
        call(context, d_input, count, d_all + policy->bin_guard_counters, run);
        CUDA_CHECK(cudaDeviceSynchronize()); /* a fault inside the kernel surfaces here */
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaMemcpy(all, d_all, counters * sizeof *all, cudaMemcpyDeviceToHost));
        record_run(policy, all, outcome);
    }
    if (check_input) {
        uint8_t *expected = host_layout(policy, input, &plan);
        uint8_t *after = grading_malloc(plan.total);
        CUDA_CHECK(cudaMemcpy(after, d_layout, plan.total, cudaMemcpyDeviceToHost));
        outcome->input_unchanged = memcmp(after, expected, plan.total) == 0;
        free(after);
        free(expected);
    }
    CUDA_CHECK(cudaFree(d_layout));
    CUDA_CHECK(cudaFree(d_all));
}

void guarded_run_on_host(const struct guard_policy *policy, const struct guarded_input *input,
                         guarded_call *call, void *context, struct guarded_outcome *outcome)
{
    start_outcome(policy, outcome);
    const struct layout_plan plan = plan_of(policy, input);
    const size_t counters = policy->bins + 2 * policy->bin_guard_counters;
    uint8_t *expected = host_layout(policy, input, &plan);
    uint8_t *layout = grading_malloc(plan.total);
    memcpy(layout, expected, plan.total);
    unsigned long long *all = grading_malloc(counters * sizeof *all);
    poison(policy, all, 0);
    /* The function runs in its worker: the guards cross with the input and the bins, so that
     * an index out of range lands in a guard, never in the grader's own memory. */
    crossing_guarded_host_block(layout, plan.total);
    crossing_guarded_host_block(all, counters * sizeof *all);
    call(context, layout + plan.lead, input->fill_count + input->count,
         all + policy->bin_guard_counters, 0);
    crossing_forget_host_block(layout);
    crossing_forget_host_block(all);
    record_run(policy, all, outcome);
    outcome->input_unchanged = memcmp(layout, expected, plan.total) == 0;
    free(all);
    free(layout);
    free(expected);
}
