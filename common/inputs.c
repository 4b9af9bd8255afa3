#include "inputs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const kind_names[TEXT_KIND_COUNT] = {
    [TEXT_ENGLISH_LIKE] = "english-like", [TEXT_UNIFORM_LETTERS] = "uniform-letters",
    [TEXT_RANDOM_BYTES] = "random-bytes", [TEXT_ONE_LETTER] = "one-letter",
    [TEXT_LONG_RUNS] = "long-runs",       [TEXT_SHORT_RUNS] = "short-runs",
    [TEXT_NO_LETTERS] = "no-letters",
};

const char *text_kind_name(enum text_kind kind)
{
    return (unsigned)kind < TEXT_KIND_COUNT ? kind_names[kind] : "unknown";
}

uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Relative frequencies of English text, per mille of letters (a..z). */
static const unsigned short english_letter_weights[26] = {
    82, 15, 28, 43, 127, 22, 20, 61, 70, 2, 8, 40, 24, 67, 75, 19, 1, 60, 63, 91, 28, 10, 24, 2, 20, 1,
};

/* A table of 4096 bytes whose makeup follows English prose: about 76% lowercase letters,
 * 16% spaces, and capitals, digits, punctuation and newlines for the rest. Drawing a byte is
 * one table lookup, so a 256 MiB text takes well under a second. */
static void build_english_table(char table[4096])
{
    size_t at = 0;
    for (int letter = 0; letter < 26; letter++)
        for (int k = 0; k < english_letter_weights[letter] * 3; k++)
            table[at++] = (char)('a' + letter);
    for (int k = 0; k < 660; k++)
        table[at++] = ' ';
    static const char capitals[] = "TAISHWCBMPDRNE";
    for (int k = 0; k < 100; k++)
        table[at++] = capitals[k % (sizeof capitals - 1)];
    for (int k = 0; k < 40; k++)
        table[at++] = (char)('0' + k % 10);
    static const char punctuation[] = ".,,;:'\"-!?()";
    for (int k = 0; k < 100; k++)
        table[at++] = punctuation[k % (sizeof punctuation - 1)];
    while (at < 4096)
        table[at++] = '\n';
}

static char random_non_letter(uint64_t *state)
{
    for (;;) {
        unsigned char byte = (unsigned char)splitmix64(state);
        if (byte < 'a' || byte > 'z')
            return (char)byte;
    }
}

static void generate_runs(uint64_t *state, char *text, uint64_t length, uint64_t shortest,
                          uint64_t longest)
{
    uint64_t at = 0;
    while (at < length) {
        uint64_t draw = splitmix64(state);
        char letter = (char)('a' + draw % 26);
        uint64_t run = shortest + (draw >> 32) % (longest - shortest + 1);
        if (run > length - at)
            run = length - at;
        memset(text + at, letter, run);
        at += run;
    }
}

void generate_text(enum text_kind kind, uint64_t seed, char *text, uint64_t length)
{
    uint64_t state = seed ^ ((uint64_t)kind << 56);
    switch (kind) {
    case TEXT_ENGLISH_LIKE: {
        char table[4096];
        build_english_table(table);
        for (uint64_t i = 0; i < length; i += 4) {
            uint64_t draw = splitmix64(&state);
            for (uint64_t k = 0; k < 4 && i + k < length; k++)
                text[i + k] = table[(draw >> (16 * k)) & 4095];
        }
        break;
    }
    case TEXT_UNIFORM_LETTERS:
        for (uint64_t i = 0; i < length; i += 8) {
            uint64_t draw = splitmix64(&state);
            for (uint64_t k = 0; k < 8 && i + k < length; k++)
                text[i + k] = (char)('a' + (((draw >> (8 * k)) & 0xFF) * 26 >> 8));
        }
        break;
    case TEXT_RANDOM_BYTES:
        for (uint64_t i = 0; i < length; i += 8) {
            uint64_t draw = splitmix64(&state);
            for (uint64_t k = 0; k < 8 && i + k < length; k++)
                text[i + k] = (char)(draw >> (8 * k));
        }
        break;
    case TEXT_ONE_LETTER:
        memset(text, 'a' + (int)(splitmix64(&state) % 26), length);
        break;
    case TEXT_LONG_RUNS:
        generate_runs(&state, text, length, 64, 4159);
        break;
    case TEXT_SHORT_RUNS:
        generate_runs(&state, text, length, 8, 64);
        break;
    case TEXT_NO_LETTERS:
        for (uint64_t i = 0; i < length; i++)
            text[i] = random_non_letter(&state);
        break;
    case TEXT_KIND_COUNT:
        break;
    }
}

int load_file(const char *path, char **data, uint64_t *length, char *error, size_t error_size)
{
    *data = NULL;
    *length = 0;
    struct stat info;
    if (stat(path, &info) != 0) {
        snprintf(error, error_size, "cannot open '%s': %s", path, strerror(errno));
        return -1;
    }
    if (S_ISDIR(info.st_mode)) {
        snprintf(error, error_size, "'%s' is a directory, not a file", path);
        return -1;
    }
    FILE *file = fopen(path, "rb");
    if (!file) {
        snprintf(error, error_size, "cannot open '%s': %s", path, strerror(errno));
        return -1;
    }
    /* Read in chunks rather than trusting st_size, so pipes and /proc files work too. */
    size_t capacity = info.st_size > 0 ? (size_t)info.st_size + 1 : 1 << 16, used = 0;
    char *buffer = malloc(capacity);
    for (;;) {
        if (!buffer) {
            snprintf(error, error_size, "'%s' does not fit in host memory", path);
            fclose(file);
            return -1;
        }
        used += fread(buffer + used, 1, capacity - used, file);
        if (used < capacity)
            break;
        capacity *= 2;
        char *grown = realloc(buffer, capacity);
        if (!grown)
            free(buffer);
        buffer = grown;
    }
    int read_failed = ferror(file);
    fclose(file);
    if (read_failed) {
        snprintf(error, error_size, "cannot read '%s': %s", path, strerror(errno));
        free(buffer);
        return -1;
    }
    if (used == 0) {
        snprintf(error, error_size, "'%s' is empty: give a file with some text in it", path);
        free(buffer);
        return -1;
    }
    *data = buffer;
    *length = used;
    return 0;
}
