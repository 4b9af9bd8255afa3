/* The grader of lab 8: correctness as in every histogram lab (texts starting off a 16-byte
 * boundary included, since the lab is about wide loads), then speed as a share of the memory's
 * bandwidth, beside the reference's share and CUB's. */
#include "lab8.h"

#include "cub_histogram.h"
#include "grading.h"
#include "histogram_grading.h"
#include "references.h"
#include "technique.h"

#include <criterion/criterion.h>

_Static_assert(_Generic(&lab8_histogram, histogram_function *: 1, default: 0),
               "lab 8's function must keep the histogram_function shape of the contract");

HISTOGRAM_TESTS(challenge, lab8_histogram)

GRADED_TEST(challenge, past_4gib, .init = require_gpu, .timeout = CORRECTNESS_TIMEOUT_S)
{
    check_histogram_past_4gib("lab8_histogram", lab8_histogram);
}

static void run_cub(void *cub, const char *d_text, uint64_t length,
                    unsigned long long *d_histogram)
{
    cub_histogram_run(cub, d_text, length, d_histogram);
}

GRADED_TEST(speed, share_of_the_memory_bandwidth, .init = require_gpu_and_timing,
     .timeout = SPEED_TIMEOUT_S)
{
    struct grading_options options = grading_options();
    uint64_t call_bytes = timed_call_bytes(LARGE_TIMED_CALL_BYTES), longest = call_bytes;
    if (options.input_file) {
        char *unused = NULL, error[512];
        if (load_file(options.input_file, &unused, &longest, error, sizeof error) != 0)
            cr_assert_fail("%s", error);
        free(unused);
    }
    struct cub_histogram *cub = cub_histogram_create(longest);
    const struct contender contenders[] = {
        {.label = "yours", .student = true, .function = lab8_histogram},
        /* Its chosen parameter asked for now: a timed run holds its calls alone (crossing.h). */
        {.label = "lab 6 reference (contiguous)",
         .with_parameter = reference_lab6_histogram_contiguous,
         .parameter = reference_lab6_chosen_chars_per_thread()},
        {.label = "lab 8 reference", .function = reference_lab8_histogram},
        {.label = "CUB DeviceHistogram", .with_context = run_cub, .context = cub},
    };
    const struct speed_table tables[] = {
        {"Lab 8: your share of the memory bandwidth (the rate column), against the fastest "
         "kernel of the earlier labs",
         0, 1, 2},
        {"Lab 8: against the library a practitioner would call, cub::DeviceHistogram", 0, 3, 2},
    };
    report_histogram_speed(call_bytes, contenders, 4, tables, 2);
    cub_histogram_destroy(cub);
}

/* The technique check's run: the histogram once. */
static void run_every_function(const struct technique_inputs *inputs)
{
    lab8_histogram(inputs->d_text, inputs->length, inputs->d_bins);
}

/* Lab 8 reads 16 bytes a load. */
GRADED_TEST(technique, wide_loads, .timeout = CORRECTNESS_TIMEOUT_S)
{
    const struct sass_rule rules[] = {
        {"(LDG|LDGSTS)\\.[A-Z0-9.]*(128|256)", true,
         "lab 8 reads the text 16 bytes a load (a uint4), and your kernels have no 16-byte "
         "global load"},
    };
    check_technique(rules, 1, run_every_function);
}
