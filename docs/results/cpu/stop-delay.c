#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
static size_t bytes;
static void *populate(void *unused)
{
    for (;;) {
        char *region = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        int r = madvise(region, bytes, MADV_POPULATE_WRITE);
        if (r) perror("madvise");
        munmap(region, bytes);
    }
    return unused;
}
static double now(void){struct timespec t; clock_gettime(CLOCK_MONOTONIC,&t); return t.tv_sec*1e3+t.tv_nsec/1e6;}
int main(int argc, char **argv)
{
    bytes = (size_t)atol(argv[1]) << 20;
    pid_t child = fork();
    if (child == 0) {
        pthread_t t;
        if (bytes) pthread_create(&t, NULL, populate, NULL);
        for (;;) pause();
    }
    usleep(200000);
    for (int i = 0; i < 5; i++) {
        int status;
        double a = now();
        kill(child, SIGSTOP);
        waitpid(child, &status, WUNTRACED);
        double b = now();
        printf("stop took %.3f ms\n", b - a);
        kill(child, SIGCONT);
        usleep(50000);
    }
    kill(child, SIGKILL);
    return 0;
}
