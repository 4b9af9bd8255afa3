/* Texts for the histogram labs: seeded generators (the same seed always gives the same bytes,
 * so a failure can be reproduced from the seed the grader prints) and file loading. */
#ifndef COMMON_INPUTS_H
#define COMMON_INPUTS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum text_kind {
    TEXT_ENGLISH_LIKE,    /* English letter frequencies with spaces, capitals, digits, punctuation */
    TEXT_UNIFORM_LETTERS, /* lowercase letters, each equally likely */
    TEXT_RANDOM_BYTES,    /* every byte value 0-255 equally likely: half of them negative chars */
    TEXT_ONE_LETTER,      /* a single letter repeated: every thread hits the same bin */
    TEXT_LONG_RUNS,       /* runs of one letter, 64 to 4159 long: locally dense, like an image */
    TEXT_SHORT_RUNS,      /* runs of one letter, 8 to 64 long */
    TEXT_NO_LETTERS,      /* random bytes with every lowercase letter left out: all bins 0 */
    TEXT_KIND_COUNT
};

/* A short name for tables and command lines ("english-like", "random-bytes", ...). */
const char *text_kind_name(enum text_kind kind);

/* Fills text[0, length) deterministically from kind and seed. */
void generate_text(enum text_kind kind, uint64_t seed, char *text, uint64_t length);

/* The table TEXT_ENGLISH_LIKE draws its bytes from (4096 bytes, generators.h): the GPU's
 * generator of timed inputs is handed a copy. */
void build_english_table(char table[4096]);

/* The kit's data files: their folder, relative to the kit's root (where ./grade, make bench and
 * the demos run), unless the environment's GRADE_DATA_DIR names another; the English text the
 * labs ship. */
#define KIT_DATA_FOLDER "grader/data"
#define SHIPPED_TEXT_FILE "jargon-file-4.4.7.txt"

/* The path of the kit's data file `name`: in GRADE_DATA_DIR, or else KIT_DATA_FOLDER. */
void kit_data_path(const char *name, char *path, size_t path_size);

/* Reads a whole file into a malloc'ed buffer. Returns 0, or -1 with a sentence in error
 * naming the file and what went wrong (missing, unreadable, a directory, empty). */
int load_file(const char *path, char **data, uint64_t *length, char *error, size_t error_size);

/* The next number of the splitmix64 sequence kept in *state: small, fast and good enough for
 * test inputs; exposed so tests can draw seeds the same way the generators do. */
uint64_t splitmix64(uint64_t *state);

#ifdef __cplusplus
}
#endif

#endif
