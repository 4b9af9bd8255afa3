/* The seeded generators of the kit's inputs, written once for the host and the GPU: the host's
 * correctness texts and images (inputs.c, images.c) and the GPU's timed inputs
 * (timed_inputs.cu), which make each segment of an input with the same functions. The same
 * seed always gives the same bytes, so a failure can be reproduced from the seed the grader
 * prints (a timed input's seed is keyed by the process that makes it: timed_inputs.h). */
#ifndef COMMON_GENERATORS_H
#define COMMON_GENERATORS_H

#include "images.h"
#include "inputs.h"

#include <stdint.h>

#ifdef __CUDACC__
#define GENERATOR_FUNCTION static inline __host__ __device__
#else
#define GENERATOR_FUNCTION static inline
#endif

/* The English-like table (inputs.c builds it): a byte of that text is one lookup in it. */
#define ENGLISH_TABLE_BYTES 4096

GENERATOR_FUNCTION uint64_t generator_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* A text of one kind as a stream of bytes: the host's generate_text takes them one after the
 * other, the GPU's generator of timed inputs a segment's worth from each stream. */
struct text_stream {
    enum text_kind kind;
    uint64_t state;
    const char *english_table; /* ENGLISH_TABLE_BYTES long */
    uint64_t draw;             /* the draw the next bytes come from */
    unsigned int used;         /* bytes of it taken */
    char letter;               /* the run's, or the whole text's */
    uint64_t run_left;
};

GENERATOR_FUNCTION void text_stream_start(struct text_stream *stream, enum text_kind kind,
                                          uint64_t seed, const char *english_table)
{
    stream->kind = kind;
    stream->state = seed ^ ((uint64_t)kind << 56);
    stream->english_table = english_table;
    stream->used = 8;
    stream->run_left = 0;
    stream->letter = kind == TEXT_ONE_LETTER ? (char)('a' + (int)(generator_next(&stream->state) % 26))
                                             : 'a';
}

/* The kinds whose bytes are slices of one draw each: how many a draw gives (0: a kind made
 * otherwise), and byte `slot` of a draw. The streams below take them a byte at a time; the GPU's
 * generator of timed inputs (timed_inputs.cu) a whole draw at once, the same bytes. */
#define ENGLISH_BYTES_A_DRAW 4
#define BYTES_A_DRAW 8
/* No-letters takes 16 bits a byte, so that its 230 values come out evenly (8 bits would give 26
 * of them twice the share of the others). */
#define NO_LETTER_BYTES_A_DRAW 4
#define TEXT_BYTES_A_DRAW(kind)                                                                \
    ((kind) == TEXT_ENGLISH_LIKE ? ENGLISH_BYTES_A_DRAW                                        \
     : (kind) == TEXT_NO_LETTERS ? NO_LETTER_BYTES_A_DRAW                                      \
     : (kind) == TEXT_UNIFORM_LETTERS || (kind) == TEXT_RANDOM_BYTES ? BYTES_A_DRAW : 0)
/* The byte values that are not lowercase letters: 0 to 'a' - 1, then 'z' + 1 to 255. */
#define NOT_LETTER_VALUES (256 - 26)
#define IMAGE_PIXELS_A_DRAW(kind) ((kind) == IMAGE_NOISE || (kind) == IMAGE_DARK ? BYTES_A_DRAW : 0)

GENERATOR_FUNCTION char text_byte_of_draw(enum text_kind kind, const char *english_table,
                                          uint64_t draw, unsigned int slot)
{
    switch (kind) {
    case TEXT_ENGLISH_LIKE:
        return english_table[(draw >> (16 * slot)) & (ENGLISH_TABLE_BYTES - 1)];
    case TEXT_UNIFORM_LETTERS:
        return (char)('a' + (((draw >> (8 * slot)) & 0xFF) * 26 >> 8));
    case TEXT_NO_LETTERS: {
        /* 16 bits of the draw scaled onto the other values: four bytes a draw, where drawing
         * until a byte was no letter took a draw a byte and made this the slowest of the timed
         * inputs (9.1 ms for 2 GiB on an H200 against 2.8 for random bytes:
         * docs/results/h200/bench-inputs-2e7e68e-2026-11-28.log). */
        unsigned int value =
            (unsigned int)((draw >> (16 * slot)) & 0xFFFF) * NOT_LETTER_VALUES >> 16;
        return (char)(value < 'a' ? value : value + 26);
    }
    case TEXT_RANDOM_BYTES:
    default:
        return (char)(draw >> (8 * slot));
    }
}

/* A byte from draws that each give `per_draw` bytes. */
GENERATOR_FUNCTION unsigned int text_stream_slot(struct text_stream *stream, unsigned int per_draw)
{
    if (stream->used >= per_draw) {
        stream->draw = generator_next(&stream->state);
        stream->used = 0;
    }
    return stream->used++;
}

GENERATOR_FUNCTION char text_stream_run_byte(struct text_stream *stream, uint64_t shortest,
                                             uint64_t longest)
{
    if (stream->run_left == 0) {
        uint64_t draw = generator_next(&stream->state);
        stream->letter = (char)('a' + draw % 26);
        stream->run_left = shortest + (draw >> 32) % (longest - shortest + 1);
    }
    stream->run_left--;
    return stream->letter;
}

GENERATOR_FUNCTION char text_stream_next(struct text_stream *stream)
{
    switch (stream->kind) {
    case TEXT_ENGLISH_LIKE:
    case TEXT_UNIFORM_LETTERS:
    case TEXT_RANDOM_BYTES:
    case TEXT_NO_LETTERS: {
        unsigned int slot = text_stream_slot(stream, TEXT_BYTES_A_DRAW(stream->kind));
        return text_byte_of_draw(stream->kind, stream->english_table, stream->draw, slot);
    }
    case TEXT_LONG_RUNS:
        return text_stream_run_byte(stream, 64, 4159);
    case TEXT_SHORT_RUNS:
        return text_stream_run_byte(stream, 8, 64);
    case TEXT_ONE_LETTER:
    default:
        return stream->letter;
    }
}

/* text[0, length) of kind from seed. */
GENERATOR_FUNCTION void generator_text(enum text_kind kind, uint64_t seed, const char *english_table,
                                       char *text, uint64_t length)
{
    struct text_stream stream;
    text_stream_start(&stream, kind, seed, english_table);
    for (uint64_t i = 0; i < length; i++)
        text[i] = text_stream_next(&stream);
}

#define GRADIENT_ROW_PIXELS 4096
#define GRADIENT_RUN 16

/* An underexposed pixel from 8 random bits: 0 for half the draws, 1 for a quarter, ... 7 for
 * the last two: the fewest values, the most threads on one bin, short of a single value. */
GENERATOR_FUNCTION uint8_t generator_dark_pixel(unsigned int bits)
{
    /* The number of trailing 1 bits, at most 7: as the loop it replaces, without a branch a bit
     * (bits < 256, so ~bits has a 1 by bit 8). */
#ifdef __CUDA_ARCH__
    unsigned int ones = (unsigned int)__ffs((int)~bits) - 1;
#else
    unsigned int ones = (unsigned int)__builtin_ctz(~bits);
#endif
    return (uint8_t)(ones < 7 ? ones : 7);
}

/* Pixel `slot` of a draw of IMAGE_NOISE or IMAGE_DARK. */
GENERATOR_FUNCTION unsigned int image_pixel_of_draw(enum image_kind kind, uint64_t draw, unsigned int slot)
{
    unsigned int bits = (unsigned int)(draw >> (8 * slot)) & 0xFF;
    return kind == IMAGE_NOISE ? bits : generator_dark_pixel(bits);
}

/* An image of one kind as a stream of pixels, from pixel first_index of the image on (the
 * gradient and the photo depend on a pixel's place). */
struct image_stream {
    enum image_kind kind;
    uint64_t state, index;
    const uint8_t *photo;
    uint64_t photo_pixels;
    uint64_t draw;
    unsigned int used;
    uint8_t value; /* a single-valued image's */
};

GENERATOR_FUNCTION void image_stream_start(struct image_stream *stream, enum image_kind kind,
                                           uint64_t seed, const uint8_t *photo,
                                           uint64_t photo_pixels, uint64_t first_index)
{
    stream->kind = kind;
    stream->state = seed ^ ((uint64_t)kind << 56) ^ 0x1A9ull;
    stream->index = first_index;
    stream->photo = photo;
    stream->photo_pixels = photo_pixels;
    stream->used = 8;
    stream->value = kind == IMAGE_SINGLE_VALUE ? (uint8_t)(generator_next(&stream->state) & 0xFF) : 0;
}

GENERATOR_FUNCTION uint8_t image_stream_next(struct image_stream *stream)
{
    uint64_t index = stream->index++;
    if (IMAGE_PIXELS_A_DRAW(stream->kind) != 0) {
        if (stream->used >= IMAGE_PIXELS_A_DRAW(stream->kind)) {
            stream->draw = generator_next(&stream->state);
            stream->used = 0;
        }
        return image_pixel_of_draw(stream->kind, stream->draw, stream->used++);
    }
    switch (stream->kind) {
    case IMAGE_PHOTO:
        return stream->photo[index % stream->photo_pixels];
    case IMAGE_GRADIENT:
        return (uint8_t)((index % GRADIENT_ROW_PIXELS) / GRADIENT_RUN +
                         (index / GRADIENT_ROW_PIXELS) / GRADIENT_RUN);
    case IMAGE_SINGLE_VALUE:
    default:
        return stream->value;
    }
}

/* pixels[0, count) of kind from seed. IMAGE_PHOTO repeats photo[0, photo_pixels). */
GENERATOR_FUNCTION void generator_image(enum image_kind kind, uint64_t seed, const uint8_t *photo,
                                        uint64_t photo_pixels, uint8_t *pixels, uint64_t count)
{
    struct image_stream stream;
    image_stream_start(&stream, kind, seed, photo, photo_pixels, 0);
    for (uint64_t i = 0; i < count; i++)
        pixels[i] = image_stream_next(&stream);
}

#endif
