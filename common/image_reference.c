#include "image_reference.h"

#include "images.h"
#include "inputs.h"
#include "repeated_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cpu_small_histogram(const uint32_t *pixels, uint64_t count, unsigned int bins,
                         unsigned long long *histogram)
{
    memset(histogram, 0, bins * sizeof *histogram);
    for (uint64_t i = 0; i < count; i++)
        if (pixels[i] < bins)
            histogram[pixels[i]]++;
}

void cpu_byte_histogram(const uint8_t *pixels, uint64_t count, unsigned long long histogram[256])
{
    /* Four sets of counters, so that runs of one value (a dark or single-value image) do not
     * make every add wait for the one before it. */
    unsigned long long partial[4][256] = {{0}};
    uint64_t i = 0;
    for (; i + 4 <= count; i += 4)
        for (int k = 0; k < 4; k++)
            partial[k][pixels[i + k]]++;
    for (; i < count; i++)
        partial[0][pixels[i]]++;
    for (int value = 0; value < 256; value++)
        histogram[value] = partial[0][value] + partial[1][value] + partial[2][value] +
                           partial[3][value];
}

void widen_to_small_pixels(const uint8_t *bytes, uint64_t count, uint32_t *pixels)
{
    for (uint64_t i = 0; i < count; i++)
        pixels[i] = bytes[i] >> 4;
}

int load_image_input(const char *path, uint8_t **pixels, uint64_t *count, char *error,
                     size_t error_size)
{
    char magic[2] = {0};
    FILE *file = fopen(path, "rb");
    if (!file) {
        snprintf(error, error_size, "cannot open '%s'", path);
        return -1;
    }
    int is_pgm = fread(magic, 1, 2, file) == 2 && magic[0] == 'P' && magic[1] == '5';
    fclose(file);
    if (!is_pgm) {
        char *bytes = NULL;
        int status = load_file(path, &bytes, count, error, error_size);
        *pixels = (uint8_t *)bytes;
        return status;
    }
    uint32_t width = 0, height = 0;
    if (load_pgm(path, pixels, &width, &height, error, error_size) != 0)
        return -1;
    *count = (uint64_t)width * height;
    return 0;
}

void cpu_byte_histogram_of_repeated(const uint8_t *block, uint64_t block_pixels, uint64_t count,
                                    unsigned long long histogram[256])
{
    unsigned long long whole[256], part[256];
    cpu_byte_histogram(block, block_pixels, whole);
    cpu_byte_histogram(block, block_pixels ? count % block_pixels : 0, part);
    histogram_of_repetition(block_pixels, count, 256, whole, part, histogram);
}

int repeat_image_on_device(enum image_kind kind, uint64_t seed, const uint8_t *photo,
                           uint64_t photo_pixels, uint64_t block_max, uint8_t *d_pixels,
                           uint64_t count, unsigned long long histogram[256])
{
    uint64_t block_pixels = count < block_max ? count : block_max;
    if (kind == IMAGE_PHOTO)
        block_pixels = photo_pixels; /* the photograph repeats whole */
    uint8_t *block = malloc(block_pixels ? block_pixels : 1);
    if (!block)
        return -1;
    generate_image(kind, seed, photo, photo_pixels, block, block_pixels);
    repeat_on_device((char *)d_pixels, count, (const char *)block, block_pixels);
    cpu_byte_histogram_of_repeated(block, block_pixels, count, histogram);
    free(block);
    return 0;
}
