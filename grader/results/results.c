/* results: the results model's command. ./grade and grade-class run it after a grading; it
 * reads the grading record and decides the verdict, the points and the exit code, and writes
 * every report from that one decision.
 *
 *   results grade --lab LAB --points FILE --records FILE [--build-log FILE | --no-file WHY]
 *                 [--filter PATTERN] [--no-timing] [--seed N] [--student ID] [--strip PREFIX]...
 *                 [--json FILE] [--tap FILE] [--xml FILE] [--summary FILE]
 *   results record --records FILE KIND TEST [FIELD]...     append one record (records.h)
 *   results check-points FILE [LAB]                         is this points file usable (for LAB)?
 *   results show FILE|- [--colors]                          FILE's text (or the standard input's), made
 *                                                           inert for a terminal
 *
 * Exit status of `grade`: the verdict's (model.h: 0 passed, 1 not passed, 2 no test ran,
 * 3 not graded on a GPU, 4 the grading machine is broken), 2 for a bad command line or
 * points file, 4 when the record is unreadable or a report cannot be written. */
#define _POSIX_C_SOURCE 200809L
#include "model.h"
#include "points.h"
#include "records.h"
#include "reports.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A points file or a build log is small; a record of a whole lab is well under this. */
#define MAX_INPUT_BYTES (16u << 20)

/* Reads a whole regular file of text. Returns NULL with a message for anything else: a
 * folder, a FIFO or a device (which could block or never end), a file over the cap, or one
 * holding a NUL byte. A log (is_log: what a compiler or a program printed, quoting what a
 * student wrote) is text whatever it holds: its first MAX_INPUT_BYTES are read, and a NUL byte
 * comes back as the text "\x00", so that no student can make a grading's logs unreadable. */
static char *read_file(const char *what, const char *path, bool is_log, char *error,
                       size_t error_size)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat status;
    if (fd < 0 || fstat(fd, &status) != 0) {
        snprintf(error, error_size, "cannot read the %s '%s': %s", what, path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    if (is_log && S_ISREG(status.st_mode) && status.st_size > (off_t)MAX_INPUT_BYTES)
        status.st_size = (off_t)MAX_INPUT_BYTES;
    if (!S_ISREG(status.st_mode) || status.st_size > (off_t)MAX_INPUT_BYTES) {
        snprintf(error, error_size, "the %s '%s' is %s", what, path,
                 S_ISDIR(status.st_mode) ? "a folder, not a file"
                 : !S_ISREG(status.st_mode) ? "not a regular file (a device, FIFO or socket)"
                                            : "larger than 16 MiB");
        close(fd);
        return NULL;
    }
    char *text = malloc((size_t)status.st_size + 1);
    size_t size = 0;
    ssize_t got = 0;
    while (text && size < (size_t)status.st_size &&
           (got = read(fd, text + size, (size_t)status.st_size - size)) > 0)
        size += (size_t)got;
    close(fd);
    if (!text || got < 0) {
        snprintf(error, error_size, "cannot read the %s '%s': %s", what, path,
                 text ? strerror(errno) : "out of memory");
        free(text);
        return NULL;
    }
    text[size] = '\0';
    size_t nuls = 0;
    for (size_t i = 0; i < size; i++)
        nuls += text[i] == '\0';
    if (nuls && !is_log) {
        snprintf(error, error_size, "the %s '%s' holds a NUL byte: it is not text", what, path);
        free(text);
        return NULL;
    }
    if (nuls) {
        char *spelled = malloc(size + 3 * nuls + 1), *out = spelled;
        for (size_t i = 0; spelled && i < size; i++) {
            if (text[i]) {
                *out++ = text[i];
            } else {
                memcpy(out, "\\x00", 4);
                out += 4;
            }
        }
        if (spelled)
            *out = '\0';
        free(text);
        if (!spelled)
            snprintf(error, error_size, "cannot read the %s '%s': out of memory", what, path);
        return spelled;
    }
    return text;
}

static char *read_text_file(const char *what, const char *path, char *error, size_t error_size)
{
    return read_file(what, path, false, error, error_size);
}

/* Reads and checks a points file; lab (its short or full name), when given, must get points
 * from it: a file written for other labs would give every student 0 of 0. */
static int load_points(const char *path, const char *lab, struct points_config *config)
{
    char error[512];
    char *text = read_text_file("points file", path, error, sizeof error);
    if (!text) {
        fprintf(stderr, "results: %s\n", error);
        return -1;
    }
    int status = points_config_parse(text, config, error, sizeof error);
    free(text);
    if (status != 0) {
        fprintf(stderr, "results: the points file '%s', %s\n", path, error);
        return status;
    }
    char short_lab[16];
    snprintf(short_lab, sizeof short_lab, "%.*s", lab ? (int)strcspn(lab, "-") : 0, lab ? lab : "");
    if (lab && !points_config_gives_points(config, short_lab)) {
        char labs[256];
        points_config_labs(config, labs, sizeof labs);
        fprintf(stderr, "results: the points file '%s' gives %s no points (its rules are for: %s): "
                        "every test would be worth 0 of 0; add rules for %s or '*'\n",
                path, short_lab, labs, short_lab);
        return -1;
    }
    return 0;
}

static int usage(void)
{
    fprintf(stderr,
            "usage: results grade --lab LAB --points FILE --records FILE [--build-log FILE | "
            "--no-file WHY] [--filter PATTERN] [--no-timing] [--seed N] [--student ID] [--strip PREFIX]... "
            "[--json FILE] [--tap FILE] [--xml FILE] [--summary FILE]\n"
            "       results record --records FILE KIND TEST [FIELD]...\n"
            "       results check-points FILE [LAB]\n"
            "       results show FILE|- [--colors]\n");
    return EXIT_GRADE_USAGE;
}

typedef int report_writer(FILE *, const struct grading *);

static int write_report(const char *path, report_writer *writer, const struct grading *grading)
{
    FILE *out = fopen(path, "w");
    int status = out ? writer(out, grading) : -1;
    if (out && fclose(out) != 0)
        status = -1;
    if (status != 0)
        fprintf(stderr, "results: cannot write '%s': %s\n", path, strerror(errno));
    return status;
}

static int command_record(int argc, char **argv)
{
    if (argc < 5 || strcmp(argv[1], "--records") != 0)
        return usage();
    for (int k = 0; k < RECORD_KIND_COUNT; k++) {
        if (strcmp(argv[3], record_kind_name((enum record_kind)k)) != 0)
            continue;
        if (record_append_to(argv[2], (enum record_kind)k, argv[4], argc - 5,
                             (const char *const *)argv + 5))
            return 0;
        fprintf(stderr, "results: cannot append to '%s': %s\n", argv[2], strerror(errno));
        return EXIT_GRADE_MACHINE;
    }
    fprintf(stderr, "results: unknown record kind '%s'\n", argv[3]);
    return EXIT_GRADE_USAGE;
}

/* A log that holds what a student's code or a compiler quoting it printed (the build's output,
 * the demo's under --sanitize), for ./grade to show: escape codes and bytes that are not UTF-8
 * made visible and inert, lines and tabs kept. "-": standard input, as it comes (a grading's
 * output, which the code under test writes to as well), with --colors its color codes kept. */
static int command_show(const char *path, bool colors)
{
    if (strcmp(path, "-") == 0) {
        static char buffer[65536];
        size_t kept = 0;
        for (;;) {
            ssize_t got = read(STDIN_FILENO, buffer + kept, sizeof buffer - kept);
            if (got < 0 && errno == EINTR)
                continue;
            size_t size = kept + (size_t)(got > 0 ? got : 0);
            size_t now = got > 0 ? inert_complete_part(buffer, size) : size;
            write_inert_bytes(stdout, buffer, now, true, colors);
            fflush(stdout);
            memmove(buffer, buffer + now, size - now);
            kept = size - now;
            if (got <= 0)
                return got < 0 || ferror(stdout) ? EXIT_GRADE_MACHINE : 0;
        }
    }
    char error[512];
    char *text = read_file("log", path, true, error, sizeof error);
    if (!text) {
        fprintf(stderr, "results: %s\n", error);
        return EXIT_GRADE_MACHINE;
    }
    write_inert_text(stdout, text, true);
    free(text);
    return fflush(stdout) == 0 && !ferror(stdout) ? 0 : EXIT_GRADE_MACHINE;
}

static int command_grade(int argc, char **argv)
{
    struct grading_setup setup = {0};
    const char *points_path = NULL, *records_path = NULL, *build_log = NULL, *json = NULL,
               *tap = NULL, *xml = NULL, *summary = NULL;
    int strips = 0;
    for (int i = 1; i < argc; i++) {
        const char *option = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(option, "--no-timing") == 0) {
            setup.no_timing = true;
            continue;
        }
        if (!value || !*value) {
            fprintf(stderr, "results: %s needs a value\n", option);
            return usage();
        }
        i++;
        if (strcmp(option, "--lab") == 0) setup.lab = value;
        else if (strcmp(option, "--points") == 0) points_path = value;
        else if (strcmp(option, "--records") == 0) records_path = value;
        else if (strcmp(option, "--build-log") == 0) build_log = value;
        else if (strcmp(option, "--no-file") == 0) setup.no_file = value;
        else if (strcmp(option, "--filter") == 0) setup.filter = value;
        else if (strcmp(option, "--student") == 0) setup.student = value;
        else if (strcmp(option, "--json") == 0) json = value;
        else if (strcmp(option, "--tap") == 0) tap = value;
        else if (strcmp(option, "--xml") == 0) xml = value;
        else if (strcmp(option, "--summary") == 0) summary = value;
        else if (strcmp(option, "--strip") == 0 && strips < 3) setup.strip_paths[strips++] = value;
        else if (strcmp(option, "--seed") == 0) {
            char *end = NULL;
            errno = 0;
            setup.seed = strtoull(value, &end, 10);
            setup.has_seed = !errno && *end == '\0' && value[0] != '-';
            if (!setup.has_seed) {
                fprintf(stderr, "results: --seed takes a whole number below 2^64, not '%s'\n", value);
                return EXIT_GRADE_USAGE;
            }
        } else {
            fprintf(stderr, "results: unknown option '%s'\n", option);
            return usage();
        }
    }
    if (!setup.lab || !points_path || !records_path)
        return usage();

    static struct points_config points;
    if (load_points(points_path, setup.lab, &points) != 0)
        return EXIT_GRADE_USAGE;
    setup.points = &points;
    char error[512];
    char *build_output = NULL;
    if (build_log) {
        build_output = read_file("build log", build_log, true, error, sizeof error);
        if (!build_output) {
            fprintf(stderr, "results: %s\n", error);
            return EXIT_GRADE_MACHINE;
        }
        setup.build_output = build_output;
    }
    char *record_text = read_text_file("grading record", records_path, error, sizeof error);
    if (!record_text) {
        fprintf(stderr, "results: %s\n", error);
        free(build_output);
        return EXIT_GRADE_MACHINE;
    }
    static struct grading grading;
    if (grading_decide(&setup, record_text, &grading, error, sizeof error) != 0) {
        fprintf(stderr, "results: %s\n", error);
        free(record_text);
        free(build_output);
        return EXIT_GRADE_MACHINE;
    }
    int status = grading.exit_code;
    const struct { const char *path; report_writer *writer; } reports[] = {
        {json, write_gradescope_json}, {tap, write_tap}, {xml, write_junit_xml},
        {summary, write_summary_json},
    };
    for (size_t r = 0; r < sizeof reports / sizeof reports[0]; r++)
        if (reports[r].path && write_report(reports[r].path, reports[r].writer, &grading) != 0)
            status = EXIT_GRADE_MACHINE;
    if (write_terminal_summary(stdout, &grading, points_path) != 0)
        status = EXIT_GRADE_MACHINE;
    grading_free(&grading);
    free(record_text);
    free(build_output);
    return status;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "grade") == 0)
        return command_grade(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "record") == 0)
        return command_record(argc - 1, argv + 1);
    if ((argc == 3 || argc == 4) && strcmp(argv[1], "check-points") == 0) {
        static struct points_config points;
        return load_points(argv[2], argc == 4 ? argv[3] : NULL, &points) == 0 ? 0 : EXIT_GRADE_USAGE;
    }
    if (argc == 3 && strcmp(argv[1], "show") == 0)
        return command_show(argv[2], false);
    if (argc == 4 && strcmp(argv[1], "show") == 0 && strcmp(argv[3], "--colors") == 0)
        return command_show(argv[2], true);
    return usage();
}
