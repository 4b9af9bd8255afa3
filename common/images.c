#include "images.h"

#include "generators.h"

#include "inputs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[IMAGE_KIND_COUNT] = {
    [IMAGE_PHOTO] = "photo",
    [IMAGE_NOISE] = "noise",
    [IMAGE_DARK] = "dark",
    [IMAGE_SINGLE_VALUE] = "single-value",
    [IMAGE_GRADIENT] = "gradient",
};

const char *image_kind_name(enum image_kind kind)
{
    return (unsigned)kind < IMAGE_KIND_COUNT ? kind_names[kind] : "unknown";
}

void generate_image(enum image_kind kind, uint64_t seed, const uint8_t *photo,
                    uint64_t photo_pixels, uint8_t *pixels, uint64_t count)
{
    generator_image(kind, seed, photo, photo_pixels, pixels, count);
}

/* Skips whitespace and '#' comments between the fields of a PGM header. */
static void skip_header_space(FILE *file)
{
    int c;
    while ((c = fgetc(file)) != EOF) {
        if (c == '#') {
            while ((c = fgetc(file)) != EOF && c != '\n')
                ;
        } else if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
            ungetc(c, file);
            return;
        }
    }
}

int load_pgm(const char *path, uint8_t **pixels, uint32_t *width, uint32_t *height, char *error,
             size_t error_size)
{
    *pixels = NULL;
    FILE *file = fopen(path, "rb");
    if (!file) {
        snprintf(error, error_size, "cannot open '%s'", path);
        return -1;
    }
    unsigned int w = 0, h = 0, max_value = 0;
    char magic[3] = {0};
    int fields = fread(magic, 1, 2, file) == 2 && strcmp(magic, "P5") == 0;
    skip_header_space(file);
    fields += fscanf(file, "%u", &w) == 1;
    skip_header_space(file);
    fields += fscanf(file, "%u", &h) == 1;
    skip_header_space(file);
    fields += fscanf(file, "%u", &max_value) == 1;
    int after_header = fgetc(file); /* one whitespace byte ends the header */
    if (fields != 4 || max_value != 255 || w == 0 || h == 0 || after_header == EOF) {
        snprintf(error, error_size,
                 "'%s' is not an 8-bit binary PGM image (P5, maximum value 255)", path);
        fclose(file);
        return -1;
    }
    uint64_t count = (uint64_t)w * h;
    uint8_t *data = malloc(count);
    uint64_t got = data ? fread(data, 1, count, file) : 0;
    fclose(file);
    if (got != count) {
        snprintf(error, error_size, "'%s' holds %llu of its %u x %u pixels", path,
                 (unsigned long long)got, w, h);
        free(data);
        return -1;
    }
    *pixels = data;
    *width = w;
    *height = h;
    return 0;
}
