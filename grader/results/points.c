#define _POSIX_C_SOURCE 200809L
#include "points.h"

#include <ctype.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Splits line into at most max_words whitespace-separated words, in place; returns how many. */
static int split_words(char *line, char **words, int max_words)
{
    int count = 0;
    for (char *at = line; *at && count <= max_words;) {
        while (isspace((unsigned char)*at))
            *at++ = '\0';
        if (!*at)
            break;
        if (count == max_words)
            return max_words + 1;
        words[count++] = at;
        while (*at && !isspace((unsigned char)*at))
            at++;
    }
    return count;
}

static bool parse_positive(const char *text, double *value)
{
    char *end = NULL;
    *value = strtod(text, &end);
    return end != text && *end == '\0' && isfinite(*value) && *value >= 0;
}

static bool past_the_bound(const struct points_rule *rule, int line_number, char *error, size_t error_size)
{
    if (rule->points <= POINTS_MAX_PER_RULE)
        return false;
    snprintf(error, error_size, "line %d: %g points is more than %d, the most one rule may give (a "
             "typo? a lab's total must stay a number every report and gradebook writes exactly)",
             line_number, rule->points, POINTS_MAX_PER_RULE);
    return true;
}

static bool is_lab_name(const char *name)
{
    if (strcmp(name, "*") == 0)
        return true;
    if (strncmp(name, "lab", 3) != 0 || !name[3])
        return false;
    for (const char *digit = name + 3; *digit; digit++)
        if (!isdigit((unsigned char)*digit))
            return false;
    return strlen(name) < sizeof ((struct points_rule *)0)->lab;
}

int points_config_parse(const char *text, struct points_config *config, char *error,
                        size_t error_size)
{
    config->count = 0;
    int line_number = 0;
    for (const char *line_start = text; *line_start;) {
        const char *line_end = strchr(line_start, '\n');
        size_t length = line_end ? (size_t)(line_end - line_start) : strlen(line_start);
        line_number++;
        char line[512];
        if (length >= sizeof line) {
            snprintf(error, error_size, "line %d: longer than %zu characters", line_number,
                     sizeof line - 1);
            return -1;
        }
        memcpy(line, line_start, length);
        line[length] = '\0';
        line_start += length + (line_end ? 1 : 0);
        char *comment = strchr(line, '#');
        if (comment)
            *comment = '\0';

        char *words[5];
        int count = split_words(line, words, 4);
        if (count == 0)
            continue;
        if (config->count == POINTS_MAX_RULES) {
            snprintf(error, error_size, "line %d: more than %d rules", line_number,
                     POINTS_MAX_RULES);
            return -1;
        }
        struct points_rule rule = {0};
        if (count < 2 || !is_lab_name(words[0])) {
            snprintf(error, error_size, "line %d: expected a lab (lab1 ... or *) and a rule, got "
                     "'%s'", line_number, count ? words[0] : "");
            return -1;
        }
        snprintf(rule.lab, sizeof rule.lab, "%s", words[0]);
        if (strcmp(words[1], "test") == 0 && count == 4 && parse_positive(words[3], &rule.points)
            && strlen(words[2]) < sizeof rule.pattern) {
            rule.kind = RULE_TEST;
            snprintf(rule.pattern, sizeof rule.pattern, "%s", words[2]);
        } else if (strcmp(words[1], "performance") == 0 && count == 4 &&
                   parse_positive(words[2], &rule.points) &&
                   parse_positive(words[3], &rule.full_at) && rule.full_at > 0) {
            rule.kind = RULE_PERFORMANCE;
        } else {
            snprintf(error, error_size, "line %d: expected '%s test PATTERN POINTS' or '%s "
                     "performance POINTS FULL_AT' (numbers >= 0, FULL_AT > 0)",
                     line_number, words[0], words[0]);
            return -1;
        }
        if (past_the_bound(&rule, line_number, error, error_size))
            return -1;
        config->rules[config->count++] = rule;
    }
    return 0;
}

static bool lab_matches(const struct points_rule *rule, const char *lab)
{
    return strcmp(rule->lab, "*") == 0 || strcmp(rule->lab, lab) == 0;
}

bool points_config_gives_points(const struct points_config *config, const char *lab)
{
    for (int r = 0; r < config->count; r++)
        if (lab_matches(&config->rules[r], lab) && config->rules[r].points > 0)
            return true;
    return false;
}

void points_config_labs(const struct points_config *config, char *out, size_t size)
{
    size_t used = 0;
    out[0] = '\0';
    for (int r = 0; r < config->count && used < size; r++) {
        const char *lab = config->rules[r].lab;
        bool named_before = false;
        for (int before = 0; before < r && !named_before; before++)
            named_before = strcmp(config->rules[before].lab, lab) == 0;
        if (!named_before)
            used += (size_t)snprintf(out + used, size - used, "%s%s", used ? ", " : "", lab);
    }
    if (!config->count)
        snprintf(out, size, "none");
}

double points_for_test(const struct points_config *config, const char *lab, const char *test)
{
    for (int r = 0; r < config->count; r++) {
        const struct points_rule *rule = &config->rules[r];
        if (rule->kind == RULE_TEST && lab_matches(rule, lab) &&
            fnmatch(rule->pattern, test, 0) == 0)
            return rule->points;
    }
    return 0;
}

bool performance_rule(const struct points_config *config, const char *lab, double *points,
                      double *full_at)
{
    for (int r = 0; r < config->count; r++) {
        const struct points_rule *rule = &config->rules[r];
        if (rule->kind == RULE_PERFORMANCE && lab_matches(rule, lab)) {
            *points = rule->points;
            *full_at = rule->full_at;
            return true;
        }
    }
    return false;
}

double performance_points(double max_points, double full_at, double ratio)
{
    if (!(ratio > 0))
        return 0;
    return ratio <= full_at ? max_points : max_points * full_at / ratio;
}
