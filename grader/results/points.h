/* A course's points: what each passing test and each lab's speed are worth, read from a plain
 * configuration file (grader/points.conf is the kit's default; its comments document the
 * format), and the arithmetic of a score. */
#ifndef GRADER_POINTS_H
#define GRADER_POINTS_H

#include <stdbool.h>
#include <stddef.h>

#define POINTS_MAX_RULES 256
/* The most points one rule may give a test or a lab's speed. A larger number is a typo (1e10):
 * no course weighs one test or one lab's speed more, and with at most POINTS_MAX_RULES rules a
 * lab's total then stays a number every report, spreadsheet and gradebook writes exactly to the
 * cent (and under the bound the class table takes, 1e9). */
#define POINTS_MAX_PER_RULE 1000

enum points_rule_kind { RULE_TEST, RULE_PERFORMANCE };

struct points_rule {
    enum points_rule_kind kind;
    char lab[16];      /* "lab5", or "*" for every lab */
    char pattern[128]; /* RULE_TEST: a glob over "suite/test" names */
    double points;     /* per passing test, or the most a lab's speed earns */
    double full_at;    /* RULE_PERFORMANCE: full points at or under this many times the
                          reference's time */
};

struct points_config {
    struct points_rule rules[POINTS_MAX_RULES];
    int count;
};

/* Parses the text of a configuration file. Returns 0, or -1 with "line N: what is wrong"
 * (points past POINTS_MAX_PER_RULE among them). */
int points_config_parse(const char *text, struct points_config *config, char *error,
                        size_t error_size);

/* Whether any rule of the file gives lab (its short name, "lab5") points: false for a file
 * written for other labs, under which every test of this one would be worth 0 of 0. */
bool points_config_gives_points(const struct points_config *config, const char *lab);

/* The labs the file's rules name, "lab1, lab2" or "*", into out (for a message). */
void points_config_labs(const struct points_config *config, char *out, size_t size);

/* The points a passing test earns: the first test rule whose lab and pattern match; 0 when
 * none does. test is "suite/test". */
double points_for_test(const struct points_config *config, const char *lab, const char *test);

/* The lab's performance rule: false when the lab earns no points for speed. */
bool performance_rule(const struct points_config *config, const char *lab, double *points,
                      double *full_at);

/* Speed points: all of max_points at ratio <= full_at (ratio = your time over the reference's),
 * then proportionally less: max_points * full_at / ratio. 0 for a ratio that is not positive. */
double performance_points(double max_points, double full_at, double ratio);

#endif
