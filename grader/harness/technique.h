/* Technique checks: a lab is about a technique (an atomic, shared memory, wide loads), and a
 * right answer reached without it has not done the lab. The checks read the machine code (SASS)
 * that nvcc produced for the student's file, with cuobjdump, and look for the instructions the
 * technique compiles to: ATOMS for an atomic on shared memory, RED or ATOMG for one on global
 * memory, ATOMG.CAS for atomicCAS, LDG.128 for a 16-byte load. */
#ifndef GRADER_TECHNIQUE_H
#define GRADER_TECHNIQUE_H

#include <stdbool.h>

struct sass_rule {
    const char *pattern; /* a POSIX extended regular expression over the SASS text */
    bool required;       /* true: some kernel must contain it; false: none may */
    const char *meaning; /* what its presence or absence says, for the failure message */
};

/* Fails the test with "right answer, technique missing" naming the first rule broken. Skips
 * when the student's object is unknown (the grader was run without ./grade) or cuobjdump is
 * not installed. */
void check_technique(const struct sass_rule *rules, int count);

/* True when the SASS text matches the pattern. */
bool sass_matches(const char *sass, const char *pattern);

#endif
