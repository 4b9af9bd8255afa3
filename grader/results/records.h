/* The grading record: the one channel from a grading's processes to the results model.
 *
 * Criterion's runner (the outcome of every test) and the test processes (a test reached its
 * end, the times of the speed tests, why a test could not run) append records to the file that
 * GRADE_RECORDS names; the results model reads them back and decides the grade. Nothing else
 * the grading prints is read by any program.
 *
 * The code under test cannot write here: it runs in a worker process (grader/crossing/crossing.h)
 * that knows nothing of this file and gave up opening files for writing before its first call,
 * and the submission check (grader/check_submission.py) refuses an object that names a function
 * able to open or write a file, read the environment or end the process.
 *
 * Format: one record a line, fields separated by tabs; a backslash, tab or newline inside a
 * field is written \\, \t, \n. The first field is the kind, the second the test
 * ("suite/name"). */
#ifndef GRADER_RECORDS_H
#define GRADER_RECORDS_H

#include <stdbool.h>
#include <stddef.h>

enum record_kind {
    RECORD_LISTED,     /* the test exists in the lab's grader; "optional" when it runs only if
                          asked for (--input) */
    RECORD_OUTCOME,    /* Criterion's verdict: passed, failed, skipped, crashed <signal>,
                          timed-out, exited <status> */
    RECORD_MESSAGE,    /* a failed check's message, or the reason for a skip */
    RECORD_END,        /* the test's body ran to its end (a pass needs it) */
    RECORD_SPEED,      /* input, your ms, the reference's ms: the lab's speed points */
    RECORD_NEEDS_GPU,  /* skipped: no usable GPU here; reason */
    RECORD_NOT_ASKED,  /* skipped: not asked for (no --input, --no-timing); reason */
    RECORD_MACHINE,    /* the grading machine cannot grade this test (a tool missing); reason */
    RECORD_CUDA_ERROR, /* a CUDA call failed in the test: the call and CUDA's message */
    RECORD_KIND_COUNT
};

#define RECORD_MAX_FIELDS 6

struct record {
    enum record_kind kind;
    int field_count;                   /* after the kind: fields[0] is the test */
    char *fields[RECORD_MAX_FIELDS];   /* unescaped, each malloc'ed */
};

/* "outcome" for RECORD_OUTCOME, and so on. */
const char *record_kind_name(enum record_kind kind);

/* Appends one record, fields escaped, to the file GRADE_RECORDS names, in one write(). Does
 * nothing when GRADE_RECORDS is unset (a grader run by hand). Returns false when the record
 * could not be written. */
bool record_append(enum record_kind kind, const char *test, int field_count,
                   const char *const *fields);

/* The same, to the file at path (an instructor's tool adding a record, say). */
bool record_append_to(const char *path, enum record_kind kind, const char *test,
                      int field_count, const char *const *fields);

/* Parses one line (without its newline). Returns false, with a reason, for a line that is
 * not a record. */
bool record_parse(const char *line, size_t length, struct record *record, char *error,
                  size_t error_size);

void record_free(struct record *record);

#endif
