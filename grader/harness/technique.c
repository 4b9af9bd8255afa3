#define _POSIX_C_SOURCE 200809L
#include "technique.h"

#include "grading.h"

#include <criterion/criterion.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#ifndef KIT_CUDA_HOME
#define KIT_CUDA_HOME "/usr/local/cuda"
#endif

static const char *find_cuobjdump(void)
{
    static const char *const candidates[] = {KIT_CUDA_HOME "/bin/cuobjdump", "/usr/bin/cuobjdump",
                                             "/usr/local/cuda/bin/cuobjdump"};
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++)
        if (access(candidates[i], X_OK) == 0)
            return candidates[i];
    return NULL;
}

/* The SASS of the student's object (malloc'ed), or NULL with a reason. */
static char *student_sass(char *reason, unsigned long reason_size)
{
    const char *object = getenv("GRADE_OBJECT");
    if (!object || !*object) {
        snprintf(reason, reason_size, "run the grader through ./grade, which names the object");
        return NULL;
    }
    const char *cuobjdump = find_cuobjdump();
    if (!cuobjdump) {
        snprintf(reason, reason_size, "cuobjdump (CUDA toolkit) is not installed here");
        return NULL;
    }
    if (access(object, R_OK) != 0) {
        snprintf(reason, reason_size, "cannot read %s", object);
        return NULL;
    }
    /* cuobjdump run directly, not through a shell: a path may hold any character. */
    int channel[2];
    if (pipe(channel) != 0) {
        snprintf(reason, reason_size, "cannot make a pipe to run %s", cuobjdump);
        return NULL;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, channel[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, channel[1], STDERR_FILENO);
    posix_spawn_file_actions_addclose(&actions, channel[0]);
    char *const arguments[] = {(char *)cuobjdump, "-sass", (char *)object, NULL};
    pid_t child;
    int spawned = posix_spawn(&child, cuobjdump, &actions, NULL, arguments, environ);
    posix_spawn_file_actions_destroy(&actions);
    close(channel[1]);
    if (spawned != 0) {
        close(channel[0]);
        snprintf(reason, reason_size, "cannot run %s: %s", cuobjdump, strerror(spawned));
        return NULL;
    }
    FILE *output = fdopen(channel[0], "r");
    size_t size = 0, capacity = 1 << 20;
    char *sass = output ? malloc(capacity) : NULL;
    size_t got;
    while (sass && (got = fread(sass + size, 1, capacity - size - 1, output)) > 0) {
        size += got;
        if (capacity - size < 4096) {
            char *bigger = realloc(sass, capacity *= 2);
            if (!bigger)
                free(sass);
            sass = bigger;
        }
    }
    if (output)
        fclose(output);
    else
        close(channel[0]);
    int wait_status = 0;
    int status = waitpid(child, &wait_status, 0) == child && WIFEXITED(wait_status)
                     ? WEXITSTATUS(wait_status) : -1;
    if (!sass) {
        snprintf(reason, reason_size, "out of host memory for the SASS");
        return NULL;
    }
    sass[size] = '\0';
    if (status != 0) {
        snprintf(reason, reason_size, "cuobjdump failed on %s: %.200s", object, sass);
        free(sass);
        return NULL;
    }
    return sass;
}

bool sass_matches(const char *sass, const char *pattern)
{
    regex_t regex;
    if (regcomp(&regex, pattern, REG_EXTENDED | REG_NOSUB | REG_NEWLINE) != 0)
        return false;
    bool found = regexec(&regex, sass, 0, NULL, 0) == 0;
    regfree(&regex);
    return found;
}

void check_technique(const struct sass_rule *rules, int count)
{
    char reason[512];
    char *sass = student_sass(reason, sizeof reason);
    if (!sass) {
        /* Not the code's fault, and never a free pass: the results model calls the grading
         * machine broken, and the test keeps its points in the maximum. */
        record_current_test(TEST_MACHINE_PROBLEM, reason);
        cr_skip_test("technique check not run: %s", reason);
    }
    const char *object = getenv("GRADE_OBJECT");
    for (int r = 0; r < count; r++) {
        bool found = sass_matches(sass, rules[r].pattern);
        if (found != rules[r].required) {
            free(sass);
            cr_assert_fail("right answer or not, technique missing: %s\n  (the machine code of %s "
                           "%s /%s/; see it with: cuobjdump -sass %s)",
                           rules[r].meaning, object, found ? "has" : "has no instruction matching",
                           rules[r].pattern, object);
        }
    }
    free(sass);
}
