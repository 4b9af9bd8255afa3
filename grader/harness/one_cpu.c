#define _GNU_SOURCE
#include "one_cpu.h"

#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

/* The CPU this thread runs on, where it may run there; else the first it may use; -1 for none. */
static int chosen_cpu(const cpu_set_t *allowed)
{
    int now = sched_getcpu();
    if (now >= 0 && now < CPU_SETSIZE && CPU_ISSET(now, allowed))
        return now;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, allowed))
            return cpu;
    return -1;
}

bool keep_on_one_cpu(char *why, size_t why_size)
{
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) {
        snprintf(why, why_size, "sched_getaffinity: %s", strerror(errno));
        return false;
    }
    int cpu = chosen_cpu(&allowed);
    if (cpu < 0) {
        snprintf(why, why_size, "this process may run on no CPU that sched_getaffinity names");
        return false;
    }
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    /* Every thread: the CUDA driver's already run (a context was made before this), and a
     * thread keeps the CPUs it was given whatever its process's first thread is given later.
     * A thread not yet moved can start another while the list is read: the list is read again
     * until a reading finds none left to move. */
    bool moved_any = true;
    for (int reading = 0; moved_any && reading < 8; reading++) {
        moved_any = false;
        DIR *tasks = opendir("/proc/self/task");
        if (!tasks) {
            snprintf(why, why_size, "cannot list this process's threads (/proc/self/task): %s",
                     strerror(errno));
            return false;
        }
        const struct dirent *entry;
        while ((entry = readdir(tasks)) != NULL) {
            char *end = NULL;
            long thread = strtol(entry->d_name, &end, 10);
            if (entry->d_name[0] == '.' || *end != '\0')
                continue;
            cpu_set_t now;
            if (sched_getaffinity((pid_t)thread, sizeof now, &now) == 0 && CPU_EQUAL(&now, &one))
                continue;
            /* A thread that ended since the listing is no longer there to move. */
            if (sched_setaffinity((pid_t)thread, sizeof one, &one) != 0) {
                if (errno == ESRCH)
                    continue;
                snprintf(why, why_size, "sched_setaffinity(thread %ld, CPU %d): %s", thread, cpu,
                         strerror(errno));
                closedir(tasks);
                return false;
            }
            moved_any = true;
        }
        closedir(tasks);
    }
    if (moved_any)
        snprintf(why, why_size, "threads kept starting while they were moved to CPU %d", cpu);
    return !moved_any;
}
