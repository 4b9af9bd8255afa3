/* A thread started before the call under test, as the CUDA driver's are before a grader's own
 * setup: what the call must reach on every thread of its process, a unit test checks on it. */
#ifndef GRADER_UNIT_WAITING_THREAD_H
#define GRADER_UNIT_WAITING_THREAD_H

/* Starts a thread that waits for ever, and returns its thread id once it runs. */
long start_waiting_thread(void);

#endif
