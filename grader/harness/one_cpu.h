/* A timed test's processes on one CPU: the test process, every thread it has, and every worker it
 * starts afterwards (a child keeps its parent's CPUs).
 *
 * A timed run passes control back and forth between processes: the grader resumes a worker and
 * unlocks it, the driver's thread inside the worker answers, the worker launches and answers,
 * the grader reads. Spread over several CPUs, each of those steps waits for an idle CPU to wake:
 * on an H200 (a virtual machine of 16 cores) that added 0.1 ms to 1.2 ms to a run, unevenly by
 * worker process and by run, and identical code graded as itself read up to 1.09x. On one CPU
 * the steps follow each other without a wake-up: a lab 8 run of the student's worker sharing the
 * grader's CPU took 1.24 ms to 1.41 ms where, on CPUs of its own, 1.33 ms to 2.29 ms
 * (docs/results/h200/one-cpu-experiment-2b37a60-2026-11-28.log). Only one process runs at a time
 * (every worker is stopped between its requests, and the grader waits for the one it asked), so
 * one CPU is all a run needs; code under test that crowds it slows its own runs alone, since its
 * threads run only while its own request is on the clock. */
#ifndef GRADER_ONE_CPU_H
#define GRADER_ONE_CPU_H

#include <stdbool.h>
#include <stddef.h>

/* Puts every thread of this process on one CPU of those it may use (the one it runs on now), so
 * that the processes it starts from now on are there too. False, with why, where the system
 * refuses (the process then runs where it did). */
bool keep_on_one_cpu(char *why, size_t why_size);

#endif
