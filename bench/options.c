#include "options.h"

#include "device.h"
#include "timing.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static bool parse_number(const char *text, uint64_t *value)
{
    char *end = NULL;
    errno = 0;
    if (!text || !*text || text[0] == '-')
        return false;
    *value = strtoull(text, &end, 10);
    return errno == 0 && *end == '\0';
}

bool parse_bench_options(int argc, char **argv, const struct bench_option_rules *rules,
                         struct bench_options *options)
{
    for (int i = 1; i < argc; i++) {
        const char *option = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        uint64_t number = 0;
        if (strcmp(option, "--help") == 0 || strcmp(option, "-h") == 0) {
            rules->usage(stdout);
            exit(EXIT_SUCCESS);
        } else if (strcmp(option, "--out") == 0 && value && *value) {
            options->out = value;
        } else if (strcmp(option, "--bytes") == 0 && parse_number(value, &number) &&
                   number >= rules->min_bytes && number <= rules->max_bytes) {
            options->bytes = number;
        } else if (strcmp(option, "--runs") == 0 && parse_number(value, &number) &&
                   number >= TIMING_MIN_RUNS && number <= 1000) {
            options->runs = (int)number;
        } else if (strcmp(option, "--seed") == 0 && parse_number(value, &number)) {
            options->seed = number;
        } else {
            fprintf(stderr, "%s: bad option or value: %s%s%s\n", rules->program, option,
                    value ? " " : "", value ? value : "");
            rules->usage(stderr);
            return false;
        }
        i++;
    }
    /* A smaller GPU's limit to stand in for (common/device.h), refused before any GPU work. */
    size_t limit = 0;
    char reason[200];
    if (!shared_memory_limit_from(getenv("KIT_SHARED_MEMORY_PER_BLOCK"), &limit, reason,
                                  sizeof reason)) {
        fprintf(stderr, "%s: %s\n", rules->program, reason);
        return false;
    }
    return true;
}
