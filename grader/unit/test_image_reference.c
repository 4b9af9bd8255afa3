/* Lab 9's CPU references and the reading of an image a user names. */
#define _POSIX_C_SOURCE 200809L /* mkstemp */
#include "image_reference.h"

#include "images.h"
#include "inputs.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

Test(cpu_small_histogram, values_outside_the_bins_count_nowhere)
{
    const uint32_t pixels[] = {0, 15, 16, 255, 0xFFFFFFFFu, 0x80000000u, 3, 3};
    unsigned long long histogram[16];
    memset(histogram, 0xA5, sizeof histogram); /* overwritten, not added to */
    cpu_small_histogram(pixels, sizeof pixels / sizeof pixels[0], 16, histogram);
    const unsigned long long expected[16] = {[0] = 1, [3] = 2, [15] = 1};
    cr_expect_arr_eq(histogram, expected, sizeof expected);
}

Test(cpu_byte_histogram, every_value_at_every_remainder_of_four)
{
    /* 1027 pixels: 4 copies of every value, then 3 more past the blocks of four. */
    uint8_t pixels[1027];
    for (int i = 0; i < 1027; i++)
        pixels[i] = (uint8_t)(i * 7);
    unsigned long long histogram[256];
    cpu_byte_histogram(pixels, 1027, histogram);
    for (int value = 0; value < 256; value++) {
        unsigned long long expected = 4;
        for (int i = 1024; i < 1027; i++)
            expected += pixels[i] == value;
        cr_expect_eq(histogram[value], expected, "value %d: %llu, expected %llu", value,
                     histogram[value], expected);
    }
}

Test(widen_to_small_pixels, sixteen_levels)
{
    const uint8_t bytes[] = {0, 15, 16, 255};
    uint32_t pixels[4];
    widen_to_small_pixels(bytes, 4, pixels);
    const uint32_t expected[] = {0, 0, 1, 15};
    cr_expect_arr_eq(pixels, expected, sizeof expected);
}

Test(load_image_input, the_shipped_photograph_is_512_by_512)
{
    uint8_t *pixels = NULL;
    uint64_t count = 0;
    char error[512] = "";
    cr_assert_eq(load_image_input(KIT_DATA_FOLDER "/" PHOTO_FILE_NAME, &pixels, &count, error,
                                  sizeof error),
                 0, "%s", error);
    cr_expect_eq(count, 512u * 512u);
    free(pixels);
}

Test(load_image_input, any_other_file_is_its_bytes)
{
    char path[] = "/tmp/image-input-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    cr_assert_eq(write(fd, "P6 not a PGM", 12), 12);
    close(fd);
    uint8_t *pixels = NULL;
    uint64_t count = 0;
    char error[512] = "";
    cr_expect_eq(load_image_input(path, &pixels, &count, error, sizeof error), 0, "%s", error);
    cr_expect_eq(count, 12u);
    free(pixels);
    unlink(path);
}

Test(load_image_input, a_broken_pgm_is_refused_with_its_name)
{
    char path[] = "/tmp/image-input-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    cr_assert_eq(write(fd, "P5 4 4 255\nab", 13), 13); /* 2 of 16 pixels */
    close(fd);
    uint8_t *pixels = NULL;
    uint64_t count = 0;
    char error[512] = "";
    cr_expect_eq(load_image_input(path, &pixels, &count, error, sizeof error), -1);
    cr_expect(strstr(error, path) != NULL, "%s", error);
    unlink(path);
}
