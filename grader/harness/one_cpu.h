/* A timed test's processes on one CPU: the test process, every thread it has, and every worker it
 * starts afterwards (a child keeps its parent's CPUs).
 *
 * A timed run passes control back and forth between processes: the grader resumes a worker and
 * unlocks it, the driver's thread inside the worker answers, the worker launches and answers,
 * the grader reads. Spread over several CPUs, each hand-over waits for another CPU to take it:
 * on an H200 (16 cores) the unlock alone returned 0.08 ms to 1.2 ms after a lab 8 run's clock
 * started, and the student's runs spread more than the reference's. With the student's worker on
 * the grader's CPU (the references' elsewhere), its lab 8 runs took 1.225 ms to 1.495 ms, against
 * 1.296 ms to 2.336 ms where the scheduler put it, and lab 8 read 0.905-0.914 for identical code
 * (docs/results/h200/one-cpu-experiment-2b37a60-2026-11-28.log); with every party of every run
 * on one CPU, the spread of the student's runs fell on every lab, lab 8's interquartile range
 * from 8.1% of the median to 2.4% (docs/results/h200/ratio-sweep-1643a86-2026-11-28.md). Only
 * one process runs at a time (every worker is stopped between its requests, and the grader waits
 * for the one it asked), so one CPU is all a run needs. Code under test that crowds it slows its
 * own runs alone: its threads run only while its worker is resumed, for its own requests and for
 * the driver's lock before each (the exploit crowds-the-cpus). Its worker may move itself to other
 * CPUs (the filter lets a process reschedule itself): that puts its own hand-overs back on CPUs
 * that must wake, and no one else's. The CPU is not reserved: other work on the machine (a class
 * grading's builds) may run on it while the kernel has not yet moved it elsewhere. */
#ifndef GRADER_ONE_CPU_H
#define GRADER_ONE_CPU_H

#include <stdbool.h>
#include <stddef.h>

/* Puts every thread of this process on one CPU of those it may use (the one it runs on now), so
 * that the processes it starts from now on are there too. False, with why, where the system
 * refuses (the process then runs where it did). */
bool keep_on_one_cpu(char *why, size_t why_size);

#endif
