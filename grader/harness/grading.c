#define _DEFAULT_SOURCE /* flock */
#include "grading.h"

#include "crossing.h"
#include "cuda_check.h"
#include "device.h"
#include "one_cpu.h"
#include "records.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>

static uint64_t number_from_environment(const char *name, uint64_t fallback)
{
    const char *text = getenv(name);
    if (!text || !*text)
        return fallback;
    char *end = NULL;
    errno = 0;
    unsigned long long value = strtoull(text, &end, 10);
    if (errno || *end || text[0] == '-')
        cr_assert_fail("%s=%s is not a whole number", name, text);
    return value;
}

struct grading_options grading_options(void)
{
    struct grading_options options;
    options.seed = number_from_environment("GRADE_SEED", 20261122);
    options.timed_runs = (int)number_from_environment("GRADE_RUNS", 10);
    options.timing = getenv("GRADE_NO_TIMING") == NULL;
    options.input_file = getenv("GRADE_INPUT");
    if (options.input_file && !*options.input_file)
        options.input_file = NULL;
    return options;
}


uint64_t timed_call_bytes(uint64_t lab_bytes)
{
    uint64_t least = ((uint64_t)gpu_facts().l2_cache_bytes * 5 / 4 + (1u << 20) - 1) >> 20 << 20;
    return lab_bytes > least ? lab_bytes : least;
}

void require_gpu(void)
{
    char reason[256];
    if (!gpu_available(reason, sizeof reason)) {
        record_current_test(TEST_NEEDS_GPU, reason);
        cr_skip_test("GPU test skipped: %s", reason);
    }
}

void require_gpu_and_timing(void)
{
    /* ./grade runs the suite "speed" alone, after the others: a timed test elsewhere would be
     * timed beside other tests. */
    if (strcmp(criterion_current_test->category, "speed") != 0)
        cr_assert_fail("grader defect: the timed test %s/%s is not in the suite speed",
                       criterion_current_test->category, criterion_current_test->name);
    if (getenv("GRADE_NO_TIMING")) {
        record_current_test(TEST_NOT_ASKED, "timing skipped: --no-timing was given");
        cr_skip_test("timing skipped: --no-timing was given");
    }
    require_gpu();
    /* Before any worker starts: each starts on the CPU its test process was given
     * (one_cpu.h says why the parties of a timed run share one). A machine that refuses still
     * grades, its runs spread as before 1643a86; the report says so, for whoever weighs them. */
    char why[256];
    if (!keep_on_one_cpu(why, sizeof why))
        printf("note: this test's processes could not be kept on one CPU (%s): its timed runs may "
               "spread more than usual\n", why);
}

void require_gpu_timing_and_a_filter(void)
{
    /* Run by name only: ./grade passes its --filter on (GRADE_FILTER), and a test that runs
     * while one is set was matched by it. */
    const char *filter = getenv("GRADE_FILTER");
    if (!filter || !*filter) {
        char reason[300];
        snprintf(reason, sizeof reason, "not run by default (it explores, and takes seconds): "
                 "./grade with --filter '%s/%s' runs it", criterion_current_test->category,
                 criterion_current_test->name);
        record_current_test(TEST_NOT_ASKED, reason);
        cr_skip_test("%s", reason);
    }
    require_gpu_and_timing();
}

void require_input_file(void)
{
    if (grading_options().input_file == NULL) {
        record_current_test(TEST_NOT_ASKED, "no --input FILE given");
        cr_skip_test("no --input FILE given");
    }
}

void require_input_file_and_gpu(void)
{
    require_input_file();
    require_gpu();
}

void take_turn_with_gpu_memory(uint64_t bytes)
{
    /* The lock is on the grading record, which every test of one grading shares; the file
     * descriptor stays open, and the lock held, until this test's process ends. */
    const char *records = getenv("GRADE_RECORDS");
    int descriptor = records && *records ? open(records, O_RDONLY | O_CLOEXEC) : -1;
    if (descriptor >= 0 && flock(descriptor, LOCK_EX) != 0)
        cr_assert_fail("cannot lock the grading record for a test that needs most of the GPU's "
                       "memory: %s", strerror(errno));
    struct gpu_facts gpu = gpu_facts();
    if (gpu.free_memory_bytes < bytes + (1ull << 30)) {
        char reason[160];
        snprintf(reason, sizeof reason, "the GPU has %zu MiB free; this test needs %" PRIu64 " MiB",
                 gpu.free_memory_bytes >> 20, (bytes >> 20) + 1024);
        record_current_test(TEST_NEEDS_GPU, reason);
        cr_skip_test("%s", reason);
    }
}

bool launch_keeps_shape(const unsigned int grid[3], const unsigned int block[3],
                        struct launch_shape_rule rule)
{
    bool one_dimensional = grid[1] == 1 && grid[2] == 1 && block[1] == 1 && block[2] == 1;
    bool blocks_right = rule.threads_per_block == 0 || block[0] == rule.threads_per_block;
    bool grid_right = rule.blocks == 0 || grid[0] == rule.blocks;
    if (rule.elements) {
        unsigned int per_thread = rule.elements_per_thread ? rule.elements_per_thread : 1;
        uint64_t a_block = (uint64_t)block[0] * per_thread;
        uint64_t needed = a_block ? (rule.elements + a_block - 1) / a_block : 0;
        /* One block more is allowed: an idle block costs little, and `n / size + 1` is a
         * common way to round up. */
        grid_right = grid_right && a_block > 0 && (grid[0] == needed || grid[0] == needed + 1);
    }
    return one_dimensional && blocks_right && grid_right;
}

static bool launched_in_shape(const struct crossing_launch *launch, struct launch_shape_rule rule)
{
    return launch_keeps_shape(launch->grid, launch->block, rule);
}

/* Whether the last request's launches keep the rule for `calls` calls. A launch of another
 * shape beside those in shape (a cheaper kernel doing the work) breaks it as much as one in
 * their place, after the kept launches too (their shapes are kept). */
static bool launches_keep(int calls, struct launch_shape_rule rule, int *in_shape, int *total)
{
    const struct crossing_launch *launches = NULL, *unkept = NULL;
    int kept = crossing_last_launches(&launches, total), unkept_count = 0;
    *in_shape = 0;
    for (int l = 0; l < kept; l++)
        *in_shape += launched_in_shape(&launches[l], rule);
    bool unkept_in_shape = crossing_unkept_launch_shapes(&unkept, &unkept_count);
    for (int s = 0; s < unkept_count; s++)
        unkept_in_shape = unkept_in_shape && launched_in_shape(&unkept[s], rule);
    if (unkept_in_shape)
        *in_shape += *total - kept;
    return *in_shape == *total && (rule.one_each ? *total == calls : *total >= calls);
}

static void describe_rule(struct launch_shape_rule rule, char *text, size_t size)
{
    char grid[128] = "blocks";
    if (rule.elements)
        snprintf(grid, sizeof grid, "a grid of just enough blocks (or one more) for %" PRIu64
                 " elements at %u a thread", rule.elements,
                 rule.elements_per_thread ? rule.elements_per_thread : 1);
    else if (rule.blocks)
        snprintf(grid, sizeof grid, "%u blocks", rule.blocks);
    if (rule.threads_per_block)
        snprintf(text, size, "%s of %u threads a block", grid, rule.threads_per_block);
    else
        snprintf(text, size, "%s (1-D, any block size)", grid);
}

bool launched_each_call_in_shape(int calls, struct launch_shape_rule rule, char *why,
                                 size_t why_size)
{
    int in_shape = 0, total = 0;
    if (launches_keep(calls, rule, &in_shape, &total))
        return true;
    char asked[192];
    describe_rule(rule, asked, sizeof asked);
    snprintf(why, why_size, "it made %d launches for %d calls, %d of them in %s, as the "
             "contract asks: %s a call, timed or not", total, calls, in_shape, asked,
             rule.one_each ? "exactly one such launch" : "at least one launch, all such");
    return false;
}

bool expect_launched_in_shape(const char *where, struct launch_shape_rule rule)
{
    int in_shape = 0, total = 0;
    if (launches_keep(1, rule, &in_shape, &total))
        return true;
    const struct crossing_launch *launches = NULL;
    int kept = crossing_last_launches(&launches, &total);
    char seen[800] = "";
    size_t used = 0;
    int shown = 0;
    for (; shown < kept && used < sizeof seen - 140; shown++)
        used += (size_t)snprintf(seen + used, sizeof seen - used, "%s%.60s(%u,%u,%u) x (%u,%u,%u)",
                                 shown ? ", " : "",
                                 launches[shown].kernel ? launches[shown].kernel : "",
                                 launches[shown].grid[0],
                                 launches[shown].grid[1], launches[shown].grid[2],
                                 launches[shown].block[0], launches[shown].block[1],
                                 launches[shown].block[2]);
    char asked[192];
    describe_rule(rule, asked, sizeof asked);
    cr_expect_fail("%s: %s in %s, as the contract asks, was not what ran (launched: %s%s): the "
                   "launch shape is part of the lab, not only the result", where,
                   rule.one_each ? "one launch" : "every launch", asked,
                   total ? seen : "no kernel", shown < total ? ", ..." : "");
    return false;
}

void *grading_malloc(uint64_t bytes)
{
    void *memory = malloc(bytes ? bytes : 1);
    cr_assert(memory != NULL, "out of host memory for %" PRIu64 " bytes", bytes);
    return memory;
}

void record_performance(const char *input, double student_ms, double reference_ms)
{
    char name[256], student[32], reference[32];
    snprintf(name, sizeof name, "%s/%s", criterion_current_test->category,
             criterion_current_test->name);
    snprintf(student, sizeof student, "%.6f", student_ms);
    snprintf(reference, sizeof reference, "%.6f", reference_ms);
    const char *fields[] = {input, student, reference};
    cr_assert(record_append(RECORD_SPEED, name, 3, fields),
              "cannot write the grading record (GRADE_RECORDS)");
}
