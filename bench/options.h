/* The command line that make bench and make lessons share: --bytes N --runs N --seed N --out X,
 * each program with its own defaults and limits of --bytes. */
#ifndef BENCH_OPTIONS_H
#define BENCH_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

struct bench_options {
    uint64_t bytes;
    int runs;
    uint64_t seed;
    const char *out; /* a folder (make bench) or a file (make lessons) */
};

struct bench_option_rules {
    const char *program;           /* named in the messages */
    uint64_t min_bytes, max_bytes; /* what --bytes accepts */
    void (*usage)(FILE *out);
};

/* Fills options from argv over the defaults already in it. --help prints the usage and exits
 * 0; a bad option or value prints one line and the usage to stderr and returns false. */
bool parse_bench_options(int argc, char **argv, const struct bench_option_rules *rules,
                         struct bench_options *options);

#ifdef __cplusplus
}
#endif

#endif
