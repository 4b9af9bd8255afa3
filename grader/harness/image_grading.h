/* Grading lab 9's image histograms: part A's sixteen bins of 32-bit pixels (on the CPU and on
 * the GPU, in blocks of any size) and part B's 256 bins of 8-bit pixels. Correctness on many
 * images with a diagnosis of what went wrong, an image past 4 GiB, and the speed tables. The
 * letter histograms of labs 4-8 have their own (histogram_grading.h). */
#ifndef GRADER_IMAGE_GRADING_H
#define GRADER_IMAGE_GRADING_H

#include "speed_tables.h"
#include "image_reference.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The correctness images, in groups, a test a group (image_grading.c lists them):
 *   IMAGE_SIZES        part A: 0 and 1 pixel, 1023 x 1025, the slides' 1024 x 1024 (values
 *                      0-14), in blocks of 256 threads
 *   IMAGE_BLOCK_SIZES  part A: 1023 x 1025 in blocks of 1, 5, 15, 16, 17, 100, 256, 1024 threads
 *   IMAGE_VALUES       part A: the photograph >> 4, and values of 16 and above (16-63, and
 *                      up to 0xFFFFFFFF) among the others
 *   SMALL_IMAGES       part B: 0, 1, 15, 16, 17 and 4095 pixels, and 4099 pixels starting 1 to
 *                      15 bytes past a 16-byte boundary (every generated image of part B ends
 *                      in a pixel of 255)
 *   IMAGE_KINDS        part B: every kind of common/images.h at about a million pixels (a prime)
 *   LONG_IMAGES        part B: 16 MiB + 3 pixels, a million starting off a boundary, the photo */
enum image_group { IMAGE_SIZES, IMAGE_BLOCK_SIZES, IMAGE_VALUES, SMALL_IMAGES, IMAGE_KINDS,
                   LONG_IMAGES };

/* Runs the function three times on each image of the group (the CPU one once), on fresh
 * poisoned bins each time, with guard pixels around the image and guard counters around the
 * bins; fails the test with the wrong bins and the likely mistake for each image where a run
 * was wrong, the guards were touched or the image was modified. */
void check_small_image_group(const char *function_name, small_image_histogram *function,
                             enum image_group group);
void check_host_small_image_group(const char *function_name, host_small_image_histogram *function,
                                  enum image_group group);
void check_byte_image_group(const char *function_name, byte_image_histogram *function,
                            enum image_group group);

/* The same on the student's --input file (a PGM's pixels, or any file's bytes; part A counts
 * them >> 4). */
void check_small_image_input_file(const char *function_name, small_image_histogram *function);
void check_host_small_image_input_file(const char *function_name,
                                       host_small_image_histogram *function);
void check_byte_image_input_file(const char *function_name, byte_image_histogram *function);

/* An image of 2^32 + 257 pixels, built on the GPU, whose one bin holds more than 2^32: catches
 * 32-bit indices and counters. Skips when the GPU has too little free memory. */
void check_byte_image_past_4gib(const char *function_name, byte_image_histogram *function);

/* The likely mistake behind a wrong histogram of part A's pixels (small_pixels: 32-bit, 16 bins)
 * or part B's (bytes, 256 bins), from its shape: "(name): explanation" into out. pixels are the
 * image as counted, threads_per_block part A's blocks on the GPU (0 otherwise). */
void diagnose_image_histogram(bool small_pixels, const void *pixels, uint64_t count,
                              unsigned int threads_per_block, const unsigned long long *expected,
                              const unsigned long long *got, char *out, size_t size);

/* The correctness tests of one function: a test a group, and one on the file of --input. */
#define IMAGE_GROUP_TEST(suite, test_name, function, check, group, group_init)                \
    GRADED_TEST(suite, test_name, .init = group_init, .timeout = CORRECTNESS_TIMEOUT_S)       \
    {                                                                                         \
        check(#function, function, group);                                                    \
    }
#define IMAGE_FILE_TEST(suite, function, check, file_init)                                    \
    GRADED_TEST(suite, your_input_file, .init = file_init, .description = OPTIONAL_TEST,      \
                .timeout = CORRECTNESS_TIMEOUT_S)                                             \
    {                                                                                         \
        check(#function, function);                                                           \
    }
#define HOST_SMALL_IMAGE_TESTS(suite, function)                                               \
    IMAGE_GROUP_TEST(suite, sizes, function, check_host_small_image_group, IMAGE_SIZES, NULL) \
    IMAGE_GROUP_TEST(suite, values, function, check_host_small_image_group, IMAGE_VALUES, NULL) \
    IMAGE_FILE_TEST(suite, function, check_host_small_image_input_file, require_input_file)
#define SMALL_IMAGE_TESTS(suite, function)                                                    \
    IMAGE_GROUP_TEST(suite, sizes, function, check_small_image_group, IMAGE_SIZES, require_gpu) \
    IMAGE_GROUP_TEST(suite, block_sizes, function, check_small_image_group, IMAGE_BLOCK_SIZES, \
                     require_gpu)                                                             \
    IMAGE_GROUP_TEST(suite, values, function, check_small_image_group, IMAGE_VALUES, require_gpu) \
    IMAGE_FILE_TEST(suite, function, check_small_image_input_file, require_input_file_and_gpu)
#define BYTE_IMAGE_TESTS(suite, function)                                                     \
    IMAGE_GROUP_TEST(suite, small_images, function, check_byte_image_group, SMALL_IMAGES,     \
                     require_gpu)                                                             \
    IMAGE_GROUP_TEST(suite, image_kinds, function, check_byte_image_group, IMAGE_KINDS,       \
                     require_gpu)                                                             \
    IMAGE_GROUP_TEST(suite, long_images, function, check_byte_image_group, LONG_IMAGES,       \
                     require_gpu)                                                             \
    IMAGE_FILE_TEST(suite, function, check_byte_image_input_file, require_input_file_and_gpu) \
    GRADED_TEST(suite, past_4gib, .init = require_gpu, .timeout = CORRECTNESS_TIMEOUT_S)      \
    {                                                                                         \
        check_byte_image_past_4gib(#function, function);                                      \
    }

/* Something to time: part A's function in blocks of threads_per_block, part B's, or one that
 * takes a context (CUB and its scratch memory). Exactly one of the three is set. */
struct image_contender {
    char label[48];
    bool student; /* the student's function: timed alone (speed.h) */
    int calls;    /* a timed run's calls; 0: about TIMED_RUN_BYTES of input (grading.h) */
    small_image_histogram *small;
    unsigned int threads_per_block;
    byte_image_histogram *bytes;
    void (*with_context)(void *context, const uint8_t *d_pixels, uint64_t pixels,
                         unsigned long long *d_histogram);
    void *context;
};

/* Times every contender on every timing input (each image kind, or only the student's --input
 * file) by the phases of speed.h, and prints each table (struct speed_table: student, baseline,
 * reference). small_pixels: part A's 32-bit pixels (a generated byte >> 4), else part B's
 * bytes. Every timed run's result is checked: a wrong one fails the test. */
void report_image_speed(bool small_pixels, uint64_t call_bytes,
                        const struct image_contender *contenders, int count,
                        const struct speed_table *tables, int table_count);

#endif
