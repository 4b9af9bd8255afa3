/* Images for lab 9: seeded generators of 8-bit gray images (the same seed always gives the same
 * pixels) and the reader of the shipped photograph. */
#ifndef COMMON_IMAGES_H
#define COMMON_IMAGES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum image_kind {
    IMAGE_PHOTO,        /* the shipped photograph (grader/data/camera.pgm), tiled */
    IMAGE_NOISE,        /* every value 0-255 equally likely: neighbours share nothing */
    IMAGE_DARK,         /* underexposed: values 0-7, half of them 0, a quarter 1, ... */
    IMAGE_SINGLE_VALUE, /* one value everywhere: every thread hits one bin */
    IMAGE_GRADIENT,     /* a diagonal ramp on rows of 4096 pixels: runs of 16 equal values */
    IMAGE_KIND_COUNT
};

/* A short name for tables and command lines ("photo", "noise", ...). */
const char *image_kind_name(enum image_kind kind);

/* An 8-bit pixel has this many values: the bins of a full image histogram. */
#define PIXEL_VALUES 256

/* The file name of the shipped photograph, in the kit's data folder. */
#define PHOTO_FILE_NAME "camera.pgm"

/* Fills pixels[0, count) deterministically from kind and seed. IMAGE_PHOTO repeats
 * photo[0, photo_pixels) (which must not be empty) and ignores the seed; the other kinds ignore
 * photo. */
void generate_image(enum image_kind kind, uint64_t seed, const uint8_t *photo,
                    uint64_t photo_pixels, uint8_t *pixels, uint64_t count);

/* Reads a binary PGM file (P5, 8-bit) into a malloc'ed buffer of width x height pixels. Returns
 * 0, or -1 with a sentence in error naming the file and what is wrong with it. */
int load_pgm(const char *path, uint8_t **pixels, uint32_t *width, uint32_t *height, char *error,
             size_t error_size);

#ifdef __cplusplus
}
#endif

#endif
