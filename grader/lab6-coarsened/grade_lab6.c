/* The grader of lab 6: contiguous coarsening on a grid sized to the text and on a fixed grid
 * (the slides' Strategy I), interleaved (Strategy II), several parameters each, and a sweep that
 * shows the trade-off. */
#include "lab6.h"

#include "device.h"
#include "grading.h"
#include "histogram_grading.h"
#include "references.h"
#include "technique.h"

#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>

/* The contract's grids (lab6.h), after every correctness call: a kernel that coarsens nothing
 * (one byte a thread whatever chars_per_thread, a grid sized to the text whatever `blocks`, or
 * several such grids a call) counts right, and only its launches show that it is not the lab.
 * One launch a call, in the shape; told once a test (each test is a process of its own), where
 * its texts would tell it on every run. */
static void expect_grid(const char *function, const char *parameter, uint64_t length,
                        struct launch_shape_rule rule)
{
    static bool told;
    if (length == 0 || told) /* nothing to count: nothing need be launched */
        return;
    char where[160];
    snprintf(where, sizeof where, "%s with %s, on %" PRIu64 " bytes", function, parameter, length);
    rule.one_each = true;
    told = !expect_launched_in_shape(where, rule);
}

static void contiguous(const char *d_text, uint64_t length, unsigned long long *d_histogram,
                       unsigned int chars_per_thread)
{
    lab6_histogram_contiguous(d_text, length, d_histogram, chars_per_thread);
    char parameter[48];
    snprintf(parameter, sizeof parameter, "chars_per_thread %u", chars_per_thread);
    expect_grid("lab6_histogram_contiguous", parameter, length,
                (struct launch_shape_rule){.elements = length,
                                           .elements_per_thread = chars_per_thread});
}

static void on_a_fixed_grid(void (*function)(const char *, uint64_t, unsigned long long *,
                                             unsigned int),
                            const char *name, const char *d_text, uint64_t length,
                            unsigned long long *d_histogram, unsigned int blocks)
{
    function(d_text, length, d_histogram, blocks);
    char parameter[48];
    snprintf(parameter, sizeof parameter, "blocks %u", blocks);
    expect_grid(name, parameter, length, (struct launch_shape_rule){.blocks = blocks});
}

/* The kernels graded with fixed parameters: 7 bytes a thread (not a power of two, so thread
 * ranges end mid-block) and 3 blocks (few threads, long loops or long sections), and with the
 * student's choices. */
static void contiguous_7(const char *d_text, uint64_t length, unsigned long long *d_histogram)
{
    contiguous(d_text, length, d_histogram, 7);
}

static void contiguous_as_chosen(const char *d_text, uint64_t length,
                                 unsigned long long *d_histogram)
{
    contiguous(d_text, length, d_histogram, lab6_chosen_chars_per_thread());
}

static void interleaved_3_blocks(const char *d_text, uint64_t length,
                                 unsigned long long *d_histogram)
{
    on_a_fixed_grid(lab6_histogram_interleaved, "lab6_histogram_interleaved", d_text, length,
                    d_histogram, 3);
}

static void interleaved_as_chosen(const char *d_text, uint64_t length,
                                  unsigned long long *d_histogram)
{
    on_a_fixed_grid(lab6_histogram_interleaved, "lab6_histogram_interleaved", d_text, length,
                    d_histogram, lab6_chosen_blocks(gpu_multiprocessors()));
}

static void sections_3_blocks(const char *d_text, uint64_t length, unsigned long long *d_histogram)
{
    on_a_fixed_grid(lab6_histogram_sections, "lab6_histogram_sections", d_text, length,
                    d_histogram, 3);
}

static void sections_as_chosen(const char *d_text, uint64_t length,
                               unsigned long long *d_histogram)
{
    on_a_fixed_grid(lab6_histogram_sections, "lab6_histogram_sections", d_text, length,
                    d_histogram, lab6_chosen_blocks(gpu_multiprocessors()));
}

HISTOGRAM_TESTS(contiguous_7_chars_per_thread, contiguous_7)

HISTOGRAM_TESTS(contiguous_as_chosen, contiguous_as_chosen)

HISTOGRAM_TESTS(interleaved_3_blocks, interleaved_3_blocks)

HISTOGRAM_TESTS(interleaved_as_chosen, interleaved_as_chosen)

HISTOGRAM_TESTS(sections_3_blocks, sections_3_blocks)

HISTOGRAM_TESTS(sections_as_chosen, sections_as_chosen)

GRADED_TEST(contiguous_as_chosen, past_4gib, .init = require_gpu, .timeout = CORRECTNESS_TIMEOUT_S)
{
    check_histogram_past_4gib("lab6_histogram_contiguous", contiguous_as_chosen);
}

GRADED_TEST(interleaved_as_chosen, past_4gib, .init = require_gpu, .timeout = CORRECTNESS_TIMEOUT_S)
{
    check_histogram_past_4gib("lab6_histogram_interleaved", interleaved_as_chosen);
}

/* Past 4 GiB on a grid of short sections: on the chosen grid (1056 blocks on an H200) each of the
 * reference's threads walks 16 KB of text a byte at a time, and the test took 2.66 s of the lab's
 * correctness time, the last to start (Criterion runs suites by name); its 64-bit sections are
 * checked as well on this grid, where begin = thread x section still passes 2^32. */
static void sections_65536_blocks(const char *d_text, uint64_t length,
                                  unsigned long long *d_histogram)
{
    on_a_fixed_grid(lab6_histogram_sections, "lab6_histogram_sections", d_text, length,
                    d_histogram, 65536);
}

GRADED_TEST(sections_65536_blocks, past_4gib, .init = require_gpu,
            .timeout = CORRECTNESS_TIMEOUT_S)
{
    check_histogram_past_4gib("lab6_histogram_sections", sections_65536_blocks);
}

GRADED_TEST(choices, are_launchable, .timeout = CORRECTNESS_TIMEOUT_S)
{
    unsigned int chars_per_thread = lab6_chosen_chars_per_thread();
    cr_expect(chars_per_thread >= 1, "lab6_chosen_chars_per_thread() returned 0: a thread must "
                                     "count at least one byte");
    for (int sms = 1; sms <= 1024; sms *= 2) {
        unsigned int blocks = lab6_chosen_blocks(sms);
        cr_expect(blocks >= 1 && blocks <= 0x7FFFFFFFu,
                  "lab6_chosen_blocks(%d) returned %u: a grid has 1 to 2^31 - 1 blocks", sms,
                  blocks);
    }
}

/* A contender that calls function with a fixed parameter, labelled by label_format (one %u). */
static struct contender parameterized(void (*function)(const char *, uint64_t,
                                                       unsigned long long *, unsigned int),
                                      unsigned int parameter, const char *label_format,
                                      bool student)
{
    struct contender c = {.student = student, .with_parameter = function, .parameter = parameter};
    snprintf(c.label, sizeof c.label, label_format, parameter);
    return c;
}

GRADED_TEST(speed, coarsened_against_lab5, .init = require_gpu_and_timing, .timeout = SPEED_TIMEOUT_S)
{
    int sms = gpu_multiprocessors();
    const struct contender contenders[] = {
        parameterized(lab6_histogram_contiguous, lab6_chosen_chars_per_thread(),
                      "yours (contiguous, %u a thread)", true),
        parameterized(lab6_histogram_interleaved, lab6_chosen_blocks(sms),
                      "yours (interleaved, %u blocks)", true),
        {.label = "lab 5 reference (shared)", .calls = 4,
         .function = reference_lab5_histogram_private_shared},
        parameterized(reference_lab6_histogram_contiguous, reference_lab6_chosen_chars_per_thread(),
                      "lab 6 reference (%u a thread)", false),
        parameterized(reference_lab6_histogram_interleaved, reference_lab6_chosen_blocks(sms),
                      "lab 6 reference (%u blocks)", false),
        parameterized(lab6_histogram_sections, lab6_chosen_blocks(sms),
                      "yours (sections, %u blocks)", true),
        parameterized(reference_lab6_histogram_sections, reference_lab6_chosen_blocks(sms),
                      "lab 6 reference (sections, %u blocks)", false),
    };
    const struct speed_table tables[] = {
        {"Lab 6, part A: contiguous partitioning with your chars_per_thread, against lab 5's "
         "shared-memory kernel",
         0, 2, 3},
        {"Lab 6, part B: interleaved partitioning with your grid size, against lab 5's "
         "shared-memory kernel",
         1, 2, 4},
        {"Lab 6, part C: contiguous sections on your grid size (Strategy I), against lab 5's "
         "shared-memory kernel",
         5, 2, 6},
    };
    report_histogram_speed(TIMED_CALL_BYTES, contenders, 7, tables, 3);
}

GRADED_TEST(speed, sweep_of_the_parameters, .init = require_gpu_timing_and_a_filter,
            .timeout = SPEED_TIMEOUT_S)
{
    int sms = gpu_multiprocessors();
    static const unsigned int chars_per_thread[] = {1, 4, 16, 32, 64, 256, 1024};
    static const unsigned int blocks_per_sm[] = {1, 2, 4, 8, 16, 32};
    struct contender contenders[1 + 7 + 6 + 6];
    int count = 0;
    contenders[count++] = (struct contender){.label = "lab 5 reference (shared)", .calls = 4,
                                             .function = reference_lab5_histogram_private_shared};
    for (int k = 0; k < 7; k++) {
        contenders[count++] = parameterized(lab6_histogram_contiguous, chars_per_thread[k],
                                            "yours, contiguous, %u a thread", true);
    }
    for (int k = 0; k < 6; k++) {
        contenders[count++] = parameterized(lab6_histogram_interleaved,
                                            blocks_per_sm[k] * (unsigned int)sms,
                                            "yours, interleaved, %u blocks", true);
    }
    for (int k = 0; k < 6; k++) {
        contenders[count++] = parameterized(lab6_histogram_sections,
                                            blocks_per_sm[k] * (unsigned int)sms,
                                            "yours, sections, %u blocks", true);
    }
    report_histogram_sweep("Lab 6: how the parameters trade off (choose yours from this)",
                           contenders, count, 0, TEXT_ENGLISH_LIKE);
}

/* The technique check's run: each kernel once, with the student's chosen parameters. */
static void run_every_function(const struct technique_inputs *inputs)
{
    lab6_histogram_contiguous(inputs->d_text, inputs->length, inputs->d_bins,
                              lab6_chosen_chars_per_thread());
    lab6_histogram_interleaved(inputs->d_text, inputs->length, inputs->d_bins,
                               lab6_chosen_blocks(gpu_multiprocessors()));
    lab6_histogram_sections(inputs->d_text, inputs->length, inputs->d_bins,
                            lab6_chosen_blocks(gpu_multiprocessors()));
}

/* Lab 6 coarsens lab 5's shared-memory kernel. */
GRADED_TEST(technique, private_bins_in_shared_memory, .timeout = CORRECTNESS_TIMEOUT_S)
{
    const struct sass_rule rules[] = {
        {"ATOMS\\.", true,
         "lab 6 coarsens the shared-memory privatized kernel of lab 5, and your kernels have no "
         "atomic on shared memory"},
    };
    check_technique(rules, 1, run_every_function);
}
