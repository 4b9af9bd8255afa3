/* The worker's restriction (grader/crossing/system_calls.h): it holds on every thread of its
 * process (CUDA's own threads, started with its context before the restriction, run host code
 * of the code under test where the runtime calls back into it), and what it refuses it says. */
#define _GNU_SOURCE /* syscall */
#include "system_calls.h"
#include "waiting_thread.h"

#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* A field of a thread's status: "Seccomp" (2 where a filter holds it) or "Seccomp_filters"
 * (how many filters hold it; Linux 5.9 and later). -1 where the field is missing. */
static int status_field_of(long thread, const char *field)
{
    char path[64], line[256], name[64];
    snprintf(path, sizeof path, "/proc/self/task/%ld/status", thread);
    snprintf(name, sizeof name, "%s:", field);
    FILE *status = fopen(path, "r");
    cr_assert(status, "cannot read %s", path);
    int value = -1;
    while (fgets(line, sizeof line, status))
        if (strncmp(line, name, strlen(name)) == 0 && sscanf(line + strlen(name), "%d", &value) == 1)
            break;
    fclose(status);
    return value;
}

/* Counted, not compared with none: a container's runtime may filter every process already. */
Test(system_calls, a_thread_started_before_the_restriction_is_restricted_too)
{
    long started_thread = start_waiting_thread();
    int filters_before = status_field_of(started_thread, "Seccomp_filters");
    if (filters_before < 0)
        cr_skip_test("this kernel's /proc does not count a thread's filters (Seccomp_filters)");
    const long self = syscall(SYS_gettid);
    const char *why = give_up_system_calls();
    cr_assert_null(why, "the restriction failed: %s", why);
    cr_expect_eq(status_field_of(started_thread, "Seccomp"), 2, "a thread started before the "
                 "restriction runs unfiltered");
    cr_expect_eq(status_field_of(started_thread, "Seccomp_filters"), filters_before + 1,
                 "a thread started before the restriction did not take its filter");
    cr_expect_eq(status_field_of(self, "Seccomp_filters"), filters_before + 1,
                 "the restricting thread did not take its filter");
}

/* A refused call says so, the first few times: code that retries one in a loop must not fill
 * the grading's log (19879 lines, 3.4 MB, in lab8-challenge/lifts-its-own-lock on an H200). */
static void capture_stderr(void)
{
    cr_redirect_stderr();
}

Test(system_calls, refused_calls_are_said_a_few_times_then_once, .init = capture_stderr)
{
    const char *why = give_up_system_calls();
    cr_assert_null(why, "the restriction failed: %s", why);
    for (int attempt = 0; attempt < 25; attempt++) {
        errno = 0;
        long made = syscall(SYS_mkdir, "/nonexistent-directory-of-the-test", 0700);
        cr_assert(made == -1 && errno == EPERM, "a refused mkdir returned %ld, errno %d", made,
                  errno);
    }
    fflush(stderr);
    FILE *said = cr_get_redirected_stderr();
    char line[512];
    int refusals = 0, more = 0, other = 0;
    while (fgets(line, sizeof line, said)) {
        if (strstr(line, "may not make system call"))
            refusals++;
        else if (strstr(line, "only the first 10 are shown"))
            more++;
        else
            other++;
    }
    cr_expect_eq(refusals, 10, "%d refusals said, not the first 10", refusals);
    cr_expect_eq(more, 1, "the line saying the rest are not shown came %d times", more);
    cr_expect_eq(other, 0, "%d other lines", other);
}
