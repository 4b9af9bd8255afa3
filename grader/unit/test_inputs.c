/* The input generators and file loading: deterministic, made as described, errors explained. */
#define _DEFAULT_SOURCE
#include "inputs.h"
#include "reference.h"
#include "repeated_text.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

#define SAMPLE (1u << 20)

static char *generated(enum text_kind kind, uint64_t seed, uint64_t length)
{
    char *text = malloc(length);
    cr_assert(text);
    generate_text(kind, seed, text, length);
    return text;
}

Test(generators, same_seed_same_text_other_seed_other_text)
{
    for (int kind = 0; kind < TEXT_KIND_COUNT; kind++) {
        char *a = generated(kind, 7, SAMPLE), *b = generated(kind, 7, SAMPLE),
             *c = generated(kind, 8, SAMPLE);
        cr_expect(memcmp(a, b, SAMPLE) == 0, "%s: seed 7 gave two different texts",
                  text_kind_name(kind));
        cr_expect(memcmp(a, c, SAMPLE) != 0, "%s: seeds 7 and 8 gave the same text",
                  text_kind_name(kind));
        free(a), free(b), free(c);
    }
}

Test(generators, every_length_is_filled_exactly)
{
    /* A canary after the text: the generators write exactly length bytes, even odd ones. */
    for (int kind = 0; kind < TEXT_KIND_COUNT; kind++) {
        for (uint64_t length = 0; length < 40; length++) {
            char buffer[48];
            memset(buffer, '#', sizeof buffer);
            generate_text(kind, 3, buffer, length);
            for (uint64_t i = length; i < sizeof buffer; i++)
                cr_assert(buffer[i] == '#', "%s wrote past %llu bytes", text_kind_name(kind),
                          (unsigned long long)length);
        }
    }
}

Test(generators, each_kind_has_its_makeup)
{
    uint64_t letters[TEXT_KIND_COUNT], high[TEXT_KIND_COUNT], spaces[TEXT_KIND_COUNT],
        capitals[TEXT_KIND_COUNT], distinct[TEXT_KIND_COUNT];
    for (int kind = 0; kind < TEXT_KIND_COUNT; kind++) {
        char *text = generated(kind, 11, SAMPLE);
        bool seen[256] = {false};
        letters[kind] = high[kind] = spaces[kind] = capitals[kind] = distinct[kind] = 0;
        for (uint64_t i = 0; i < SAMPLE; i++) {
            unsigned char byte = (unsigned char)text[i];
            letters[kind] += histogram_bin_of(text[i]) >= 0;
            high[kind] += byte >= 0x80;
            spaces[kind] += byte == ' ';
            capitals[kind] += byte >= 'A' && byte <= 'Z';
            distinct[kind] += !seen[byte];
            seen[byte] = true;
        }
        free(text);
    }
    cr_expect_eq(letters[TEXT_UNIFORM_LETTERS], SAMPLE);
    cr_expect_eq(distinct[TEXT_UNIFORM_LETTERS], 26);
    cr_expect_eq(letters[TEXT_NO_LETTERS], 0);
    cr_expect_eq(distinct[TEXT_NO_LETTERS], 256 - 26, "no-letters: %llu distinct bytes, expected "
                 "every value but the 26 letters", (unsigned long long)distinct[TEXT_NO_LETTERS]);
    cr_expect_eq(distinct[TEXT_ONE_LETTER], 1);
    cr_expect_eq(letters[TEXT_ONE_LETTER], SAMPLE);
    cr_expect_eq(distinct[TEXT_RANDOM_BYTES], 256);
    cr_expect(high[TEXT_RANDOM_BYTES] > SAMPLE / 2 - SAMPLE / 50 &&
                  high[TEXT_RANDOM_BYTES] < SAMPLE / 2 + SAMPLE / 50,
              "random bytes: %llu of %u are >= 0x80, expected about half",
              (unsigned long long)high[TEXT_RANDOM_BYTES], SAMPLE);
    double letter_share = (double)letters[TEXT_ENGLISH_LIKE] / SAMPLE;
    cr_expect(letter_share > 0.65 && letter_share < 0.85, "english-like: %.2f letters",
              letter_share);
    cr_expect(spaces[TEXT_ENGLISH_LIKE] > SAMPLE / 10, "english-like has too few spaces");
    cr_expect(capitals[TEXT_ENGLISH_LIKE] > 0, "english-like has no capitals");
    cr_expect_eq(letters[TEXT_LONG_RUNS], SAMPLE);
    cr_expect_eq(letters[TEXT_SHORT_RUNS], SAMPLE);
}

static void check_run_lengths(enum text_kind kind, uint64_t shortest, uint64_t longest)
{
    char *text = generated(kind, 5, SAMPLE);
    uint64_t start = 0, runs = 0;
    for (uint64_t i = 1; i <= SAMPLE; i++) {
        if (i < SAMPLE && text[i] == text[start])
            continue;
        uint64_t run = i - start;
        /* Two draws of one letter in a row merge into a longer run; the last one may be cut. */
        cr_expect(run >= shortest || i == SAMPLE, "%s: a run of %llu", text_kind_name(kind),
                  (unsigned long long)run);
        runs++;
        start = i;
    }
    cr_expect(runs > SAMPLE / (2 * longest), "%s: only %llu runs", text_kind_name(kind),
              (unsigned long long)runs);
    free(text);
}

Test(generators, runs_are_as_long_as_promised)
{
    check_run_lengths(TEXT_LONG_RUNS, 64, 4159);
    check_run_lengths(TEXT_SHORT_RUNS, 8, 64);
}

Test(generators, names_are_distinct)
{
    for (int a = 0; a < TEXT_KIND_COUNT; a++)
        for (int b = a + 1; b < TEXT_KIND_COUNT; b++)
            cr_expect_str_neq(text_kind_name(a), text_kind_name(b));
    cr_expect_str_eq(text_kind_name(TEXT_KIND_COUNT), "unknown");
}

/* The expected histogram of a timed text comes from its block alone: it must equal the
 * histogram of the whole text, the last copy cut included. */
Test(histogram_of_repeated, equals_the_histogram_of_the_tiled_text)
{
    enum { BLOCK = 1009 };
    char *block = generated(TEXT_RANDOM_BYTES, 7, BLOCK);
    const uint64_t lengths[] = {0, 1, BLOCK - 1, BLOCK, 3 * BLOCK, 3 * BLOCK + 517};
    for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++) {
        uint64_t length = lengths[l];
        char *tiled = malloc(length + 1);
        cr_assert(tiled);
        for (uint64_t i = 0; i < length; i++)
            tiled[i] = block[i % BLOCK];
        unsigned long long expected[HISTOGRAM_BINS], got[HISTOGRAM_BINS];
        cpu_histogram(tiled, length, expected);
        histogram_of_repeated(block, BLOCK, length, got);
        for (int bin = 0; bin < HISTOGRAM_BINS; bin++)
            cr_expect_eq(got[bin], expected[bin], "length %llu, bin %d: %llu, expected %llu",
                         (unsigned long long)length, bin, got[bin], expected[bin]);
        free(tiled);
    }
    free(block);
}

static char *write_temporary(const char *content, size_t length, char *path)
{
    strcpy(path, "/tmp/kit-test-XXXXXX");
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    cr_assert_eq(write(fd, content, length), (ssize_t)length);
    close(fd);
    return path;
}

Test(load_file, reads_a_file_whole)
{
    char path[64], *data = NULL, error[256];
    uint64_t length = 0;
    write_temporary("hello\0world", 11, path);
    cr_assert_eq(load_file(path, &data, &length, error, sizeof error), 0, "%s", error);
    cr_expect_eq(length, 11);
    cr_expect(memcmp(data, "hello\0world", 11) == 0);
    free(data);
    unlink(path);
}

Test(load_file, explains_each_failure)
{
    char path[64], *data = NULL, error[256];
    uint64_t length = 0;
    cr_expect_eq(load_file("/nonexistent/text.txt", &data, &length, error, sizeof error), -1);
    cr_expect(strstr(error, "/nonexistent/text.txt") && strstr(error, "No such file"), "%s", error);
    cr_expect_eq(load_file("/tmp", &data, &length, error, sizeof error), -1);
    cr_expect(strstr(error, "is a directory"), "%s", error);
    write_temporary("", 0, path);
    cr_expect_eq(load_file(path, &data, &length, error, sizeof error), -1);
    cr_expect(strstr(error, "is empty"), "%s", error);
    unlink(path);
    if (getuid() != 0) { /* root reads anything, so only an ordinary user can see this one */
        write_temporary("secret", 6, path);
        chmod(path, 0);
        cr_expect_eq(load_file(path, &data, &length, error, sizeof error), -1);
        cr_expect(strstr(error, "Permission denied"), "%s", error);
        unlink(path);
    }
}
