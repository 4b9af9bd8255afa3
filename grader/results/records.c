#define _POSIX_C_SOURCE 200809L
#include "records.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const kind_names[RECORD_KIND_COUNT] = {
    [RECORD_LISTED] = "listed",       [RECORD_OUTCOME] = "outcome",
    [RECORD_MESSAGE] = "message",     [RECORD_END] = "end",
    [RECORD_SPEED] = "speed",         [RECORD_NEEDS_GPU] = "needs-gpu",
    [RECORD_NOT_ASKED] = "not-asked", [RECORD_MACHINE] = "machine",
    [RECORD_CUDA_ERROR] = "cuda-error",
};

const char *record_kind_name(enum record_kind kind)
{
    return kind < RECORD_KIND_COUNT ? kind_names[kind] : "?";
}

/* Appends text, escaped, to the buffer; returns false when it does not fit. */
static bool append_escaped(char *buffer, size_t size, size_t *used, const char *text)
{
    for (const char *at = text; *at; at++) {
        const char *escape = *at == '\\' ? "\\\\" : *at == '\t' ? "\\t" : *at == '\n' ? "\\n" : NULL;
        size_t length = escape ? 2 : 1;
        if (*used + length + 1 >= size)
            return false;
        if (escape)
            memcpy(buffer + *used, escape, 2);
        else
            buffer[*used] = *at;
        *used += length;
    }
    return true;
}

static bool format_record(char *buffer, size_t size, size_t *used, enum record_kind kind,
                          const char *test, int field_count, const char *const *fields)
{
    *used = 0;
    bool fits = append_escaped(buffer, size, used, record_kind_name(kind));
    const char *all[RECORD_MAX_FIELDS];
    all[0] = test;
    for (int f = 0; f < field_count && f + 1 < RECORD_MAX_FIELDS; f++)
        all[f + 1] = fields[f];
    int count = field_count + 1 < RECORD_MAX_FIELDS ? field_count + 1 : RECORD_MAX_FIELDS;
    for (int f = 0; f < count && fits; f++) {
        buffer[(*used)++] = '\t';
        fits = append_escaped(buffer, size, used, all[f] ? all[f] : "");
    }
    if (!fits)
        return false;
    buffer[(*used)++] = '\n';
    return true;
}

bool record_append_to(const char *path, enum record_kind kind, const char *test,
                      int field_count, const char *const *fields)
{
    /* Records are short; a long message is cut, with a mark, rather than lost. */
    static const char cut_mark[] = " [cut]";
    enum { RECORD_BYTES = 16384 };
    char *buffer = malloc(RECORD_BYTES);
    if (!buffer)
        return false;
    size_t used = 0;
    if (!format_record(buffer, RECORD_BYTES, &used, kind, test, field_count, fields)) {
        /* Too long: keep what fits of the last field and say so. */
        used = RECORD_BYTES - sizeof cut_mark - 2;
        while (used > 0 && buffer[used - 1] == '\\')
            used--; /* never end inside an escape */
        memcpy(buffer + used, cut_mark, sizeof cut_mark - 1);
        used += sizeof cut_mark - 1;
        buffer[used++] = '\n';
    }
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    bool written = fd >= 0 && write(fd, buffer, used) == (ssize_t)used;
    if (fd >= 0 && close(fd) != 0)
        written = false;
    free(buffer);
    return written;
}

bool record_append(enum record_kind kind, const char *test, int field_count,
                   const char *const *fields)
{
    const char *path = getenv("GRADE_RECORDS");
    if (!path || !*path)
        return true;
    return record_append_to(path, kind, test, field_count, fields);
}

static char *unescape(const char *start, size_t length)
{
    char *text = malloc(length + 1);
    if (!text)
        return NULL;
    size_t out = 0;
    for (size_t i = 0; i < length; i++) {
        if (start[i] == '\\' && i + 1 < length) {
            char next = start[++i];
            text[out++] = next == 't' ? '\t' : next == 'n' ? '\n' : next;
        } else {
            text[out++] = start[i];
        }
    }
    text[out] = '\0';
    return text;
}

bool record_parse(const char *line, size_t length, struct record *record, char *error,
                  size_t error_size)
{
    memset(record, 0, sizeof *record);
    const char *tab = memchr(line, '\t', length);
    if (!tab) {
        snprintf(error, error_size, "no test named");
        return false;
    }
    size_t kind_length = (size_t)(tab - line);
    record->kind = RECORD_KIND_COUNT;
    for (int k = 0; k < RECORD_KIND_COUNT; k++)
        if (strlen(kind_names[k]) == kind_length && memcmp(kind_names[k], line, kind_length) == 0)
            record->kind = (enum record_kind)k;
    if (record->kind == RECORD_KIND_COUNT) {
        snprintf(error, error_size, "unknown kind '%.*s'", (int)(kind_length < 40 ? kind_length : 40),
                 line);
        return false;
    }
    const char *field = tab + 1, *end = line + length;
    while (field <= end && record->field_count < RECORD_MAX_FIELDS) {
        const char *next = memchr(field, '\t', (size_t)(end - field));
        const char *stop = next ? next : end;
        record->fields[record->field_count] = unescape(field, (size_t)(stop - field));
        if (!record->fields[record->field_count]) {
            snprintf(error, error_size, "out of memory");
            record_free(record);
            return false;
        }
        record->field_count++;
        if (!next)
            break;
        field = next + 1;
    }
    if (record->fields[0][0] == '\0') {
        snprintf(error, error_size, "no test named");
        record_free(record);
        return false;
    }
    return true;
}

void record_free(struct record *record)
{
    for (int f = 0; f < record->field_count; f++)
        free(record->fields[f]);
    record->field_count = 0;
}
