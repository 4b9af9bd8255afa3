#include "inputs.h"

#include "generators.h"

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
    return generator_next(state);
}

/* Relative frequencies of English text, per mille of letters (a..z). */
static const unsigned short english_letter_weights[26] = {
    82, 15, 28, 43, 127, 22, 20, 61, 70, 2, 8, 40, 24, 67, 75, 19, 1, 60, 63, 91, 28, 10, 24, 2, 20, 1,
};

/* About 76% lowercase letters, 16% spaces, and capitals, digits, punctuation and newlines for
 * the rest: English prose's makeup. Drawing a byte is one lookup, so a 256 MiB text takes well
 * under a second. */
void build_english_table(char table[ENGLISH_TABLE_BYTES])
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
    while (at < ENGLISH_TABLE_BYTES)
        table[at++] = '\n';
}

void generate_text(enum text_kind kind, uint64_t seed, char *text, uint64_t length)
{
    char table[ENGLISH_TABLE_BYTES];
    if (kind == TEXT_ENGLISH_LIKE)
        build_english_table(table);
    generator_text(kind, seed, table, text, length);
}

void kit_data_path(const char *name, char *path, size_t path_size)
{
    const char *folder = getenv("GRADE_DATA_DIR");
    snprintf(path, path_size, "%s/%s", folder && *folder ? folder : KIT_DATA_FOLDER, name);
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
