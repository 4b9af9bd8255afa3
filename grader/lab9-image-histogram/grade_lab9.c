/* The grader of lab 9: part A's sixteen bins on the CPU, with global atomics and in shared
 * memory, on blocks of every size; part B's 256 bins, privatized and then as fast as the
 * memory allows (images starting off a 16-byte boundary included, since the fast kernel reads
 * 16 bytes a load), with its share of the memory's bandwidth beside the reference's and CUB's. */
#include "lab9.h"

#include "cub_histogram.h"
#include "grading.h"
#include "image_grading.h"
#include "references.h"
#include "technique.h"

#include <criterion/criterion.h>

_Static_assert(_Generic(&lab9_histogram16_host, host_small_image_histogram *: 1, default: 0) &&
                   _Generic(&lab9_histogram16_global, small_image_histogram *: 1, default: 0) &&
                   _Generic(&lab9_histogram16_shared, small_image_histogram *: 1, default: 0) &&
                   _Generic(&lab9_histogram256_private, byte_image_histogram *: 1, default: 0) &&
                   _Generic(&lab9_histogram256, byte_image_histogram *: 1, default: 0),
               "lab 9's functions must keep the shapes of the contract");

/* Part A's host function runs on the CPU: its tests need no GPU. */
HOST_SMALL_IMAGE_TESTS(host16, lab9_histogram16_host)

SMALL_IMAGE_TESTS(global16, lab9_histogram16_global)

SMALL_IMAGE_TESTS(shared16, lab9_histogram16_shared)

BYTE_IMAGE_TESTS(private256, lab9_histogram256_private)

BYTE_IMAGE_TESTS(fast256, lab9_histogram256)

/* Part A's shared kernel in blocks of 256 threads (8 warps): its bins zeroed, then a barrier,
 * then counted into. Without the barrier a warp can count into a bin before warp 0 has zeroed
 * it; warp 0 is nearly always first, so no run shows the race, and the test reads the machine
 * code of the kernels the function launches instead (technique.h, BARRIER_AFTER_ZEROING). */
static void run_shared16(const struct technique_inputs *inputs)
{
    lab9_histogram16_shared((const uint32_t *)inputs->d_text, inputs->length / sizeof(uint32_t),
                            inputs->d_bins, 256);
}

GRADED_TEST(shared16, barrier_after_zeroing, .init = require_gpu,
            .timeout = CORRECTNESS_TIMEOUT_S)
{
    check_machine_code_order(&BARRIER_AFTER_ZEROING, 1, run_shared16);
}

/* Part A is timed in blocks of 256 threads, as lab 4 launches its kernel. */
#define TIMED_THREADS_PER_BLOCK 256

GRADED_TEST(speed, shared_against_global, .init = require_gpu_and_timing,
            .timeout = SPEED_TIMEOUT_S)
{
    const struct image_contender contenders[] = {
        {.label = "yours (shared)", .student = true, .calls = 16, .small = lab9_histogram16_shared,
         .threads_per_block = TIMED_THREADS_PER_BLOCK},
        {.label = "yours (global)", .student = true, .calls = 1, .small = lab9_histogram16_global,
         .threads_per_block = TIMED_THREADS_PER_BLOCK},
        {.label = "lab 9 reference (shared)", .calls = 16,
         .small = reference_lab9_histogram16_shared,
         .threads_per_block = TIMED_THREADS_PER_BLOCK},
        {.label = "lab 9 reference (global)", .calls = 1,
         .small = reference_lab9_histogram16_global,
         .threads_per_block = TIMED_THREADS_PER_BLOCK},
    };
    const struct speed_table tables[] = {
        {"Lab 9, part A: your shared-memory histogram against your global atomics", 0, 1, 2},
        {"Lab 9, part A: your global atomics against the reference's", 1, 3, -1},
    };
    report_image_speed(true, TIMED_CALL_BYTES, contenders, 4, tables, 2);
}

GRADED_TEST(speed, private_against_reference, .init = require_gpu_and_timing,
            .timeout = SPEED_TIMEOUT_S)
{
    const struct image_contender contenders[] = {
        {.label = "yours (private)", .student = true, .calls = 8,
         .bytes = lab9_histogram256_private},
        {.label = "lab 9 reference (private)", .calls = 8,
         .bytes = reference_lab9_histogram256_private},
    };
    const struct speed_table tables[] = {
        {"Lab 9, part B step 1: your privatized 256-bin histogram against the reference's", 0, 1,
         1},
    };
    report_image_speed(false, TIMED_CALL_BYTES, contenders, 2, tables, 1);
}

static void run_cub(void *cub, const uint8_t *d_pixels, uint64_t pixels,
                    unsigned long long *d_histogram)
{
    cub_byte_histogram_run(cub, d_pixels, pixels, d_histogram);
}

GRADED_TEST(speed, share_of_the_memory_bandwidth, .init = require_gpu_and_timing,
            .timeout = SPEED_TIMEOUT_S)
{
    struct grading_options options = grading_options();
    uint64_t call_bytes = timed_call_bytes(LARGE_TIMED_CALL_BYTES), largest = call_bytes;
    if (options.input_file) {
        uint8_t *unused = NULL;
        char error[512];
        if (load_image_input(options.input_file, &unused, &largest, error, sizeof error) != 0)
            cr_assert_fail("%s", error);
        free(unused);
    }
    struct cub_byte_histogram *cub = cub_byte_histogram_create(largest);
    const struct image_contender contenders[] = {
        {.label = "yours", .student = true, .bytes = lab9_histogram256},
        {.label = "lab 9 reference (private)", .bytes = reference_lab9_histogram256_private},
        {.label = "lab 9 reference", .bytes = reference_lab9_histogram256},
        {.label = "CUB DeviceHistogram", .with_context = run_cub, .context = cub},
    };
    const struct speed_table tables[] = {
        {"Lab 9, part B step 2: your share of the memory bandwidth (the rate column), against "
         "the privatized kernel of step 1",
         0, 1, 2},
        {"Lab 9, part B step 2: against the library a practitioner would call, "
         "cub::DeviceHistogram::HistogramEven with 256 bins",
         0, 3, 2},
    };
    report_image_speed(false, call_bytes, contenders, 4, tables, 2);
    cub_byte_histogram_destroy(cub);
}

/* The technique check's run: every GPU function once, the text's bytes as pixels. */
static void run_every_function(const struct technique_inputs *inputs)
{
    const uint32_t *image = (const uint32_t *)inputs->d_text;
    uint64_t pixels = inputs->length / sizeof *image;
    lab9_histogram16_global(image, pixels, inputs->d_bins, 256);
    lab9_histogram16_shared(image, pixels, inputs->d_bins, 256);
    lab9_histogram256_private((const uint8_t *)inputs->d_text, inputs->length, inputs->d_bins);
    lab9_histogram256((const uint8_t *)inputs->d_text, inputs->length, inputs->d_bins);
}

/* Part A counts in shared memory, part B's fast kernel reads 16 bytes a load. */
GRADED_TEST(technique, shared_atomics_and_wide_loads, .timeout = CORRECTNESS_TIMEOUT_S)
{
    const struct sass_rule rules[] = {
        {"ATOMS\\.", true,
         "part A's shared version and part B count into private bins in shared memory, and your "
         "kernels have no atomic on shared memory"},
        {"(LDG|LDGSTS)\\.[A-Z0-9.]*(128|256)", true,
         "part B's fast kernel reads the image 16 bytes a load (a uint4), and your kernels have "
         "no 16-byte global load"},
    };
    check_technique(rules, 2, run_every_function);
}
