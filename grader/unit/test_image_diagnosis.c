/* Lab 9's diagnosis of a wrong image histogram: each mistake, simulated on the CPU, must be named
 * as such. */
#include "image_grading.h"
#include "image_reference.h"
#include "images.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#define PIXELS 4099
#define BINS 256

struct byte_image {
    uint8_t pixels[PIXELS];
    unsigned long long expected[BINS];
};

/* Noise whose last pixel is 255, as the grader makes part B's images. */
static void noise_ending_in_255(struct byte_image *image)
{
    generate_image(IMAGE_NOISE, 12345, NULL, 0, image->pixels, PIXELS);
    image->pixels[PIXELS - 1] = 255;
    cpu_byte_histogram(image->pixels, PIXELS, image->expected);
}

static void diagnose_bytes(const struct byte_image *image, const unsigned long long *got,
                           char *cause, size_t size)
{
    diagnose_image_histogram(false, image->pixels, PIXELS, 0, image->expected, got, cause, size);
}

Test(image_diagnosis, a_255_dropped_is_named)
{
    struct byte_image image;
    noise_ending_in_255(&image);
    unsigned long long got[BINS];
    memcpy(got, image.expected, sizeof got);
    got[255] -= 1; /* the tail's 255 never counted, the tail's other pixels counted */
    char cause[640];
    diagnose_bytes(&image, got, cause, sizeof cause);
    cr_expect(strstr(cause, "(value-255-missing)") == cause, "%s", cause);
    cr_expect(strstr(cause, "last pixel is 255"), "%s", cause);
}

Test(image_diagnosis, a_255_counted_in_another_bin_is_named)
{
    struct byte_image image;
    noise_ending_in_255(&image);
    unsigned long long got[BINS];
    memcpy(got, image.expected, sizeof got);
    got[255] -= 1;
    got[127] += 1; /* 255 & 0x7F */
    char cause[640];
    diagnose_bytes(&image, got, cause, sizeof cause);
    cr_expect(strstr(cause, "(value-255-misbinned)") == cause, "%s", cause);
    cr_expect(strstr(cause, "counted as 127"), "%s", cause);
}

Test(image_diagnosis, a_whole_tail_missing_is_still_the_tail)
{
    struct byte_image image;
    noise_ending_in_255(&image);
    unsigned long long got[BINS];
    cpu_byte_histogram(image.pixels, PIXELS - 5, got); /* a tail of 5 pixels dropped */
    char cause[640];
    diagnose_bytes(&image, got, cause, sizeof cause);
    cr_expect(strstr(cause, "(tail-missing)") == cause, "%s", cause);
    cr_expect(strstr(cause, "last 5 pixels"), "%s", cause);
}

Test(image_diagnosis, other_wrong_bins_are_not_blamed_on_255)
{
    struct byte_image image;
    noise_ending_in_255(&image);
    unsigned long long got[BINS];
    memcpy(got, image.expected, sizeof got);
    got[254] -= 1;
    got[3] += 1;
    char cause[640];
    diagnose_bytes(&image, got, cause, sizeof cause);
    cr_expect(strstr(cause, "(wrong-bins)") == cause, "%s", cause);
}
