#define _GNU_SOURCE /* syscall */
#include "waiting_thread.h"

#include <criterion/criterion.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile long started_thread;

static void *wait_forever(void *unused)
{
    started_thread = syscall(SYS_gettid);
    for (;;)
        pause();
    return unused;
}

long start_waiting_thread(void)
{
    pthread_t thread;
    started_thread = 0;
    cr_assert_eq(pthread_create(&thread, NULL, wait_forever, NULL), 0, "pthread_create");
    while (!started_thread)
        sched_yield();
    return started_thread;
}
