/* A timed test's processes on one CPU (grader/harness/one_cpu.h): every thread the test process
 * had before, and every process it starts after. Each test is a process of its own: what it pins
 * stays there. */
#define _GNU_SOURCE
#include "one_cpu.h"
#include "waiting_thread.h"

#include <criterion/criterion.h>
#include <sched.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static int cpus_of(pid_t thread)
{
    cpu_set_t set;
    cr_assert(sched_getaffinity(thread, sizeof set, &set) == 0, "sched_getaffinity(%d)",
              (int)thread);
    return CPU_COUNT(&set);
}

static void needs_two_cpus(void)
{
    if (cpus_of(0) < 2)
        cr_skip_test("this process may use one CPU only: there is nothing to pin");
}

Test(one_cpu, every_thread_and_every_later_process, .init = needs_two_cpus)
{
    long started_thread = start_waiting_thread();
    char why[256] = "";
    cr_assert(keep_on_one_cpu(why, sizeof why), "keep_on_one_cpu: %s", why);
    cr_expect_eq(cpus_of(0), 1, "the calling thread may still use %d CPUs", cpus_of(0));
    cr_expect_eq(cpus_of((pid_t)started_thread), 1, "a thread started before may still use %d "
                 "CPUs", cpus_of((pid_t)started_thread));
    pid_t child = fork();
    cr_assert(child >= 0, "fork");
    if (child == 0)
        _exit(cpus_of(0) == 1 ? 0 : 1);
    int status = 0;
    cr_assert_eq(waitpid(child, &status, 0), child);
    cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0,
              "a process started after may use more than one CPU");
}
