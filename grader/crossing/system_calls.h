/* What the process that runs the code under test gives up, for the rest of its life, before the
 * first call (grader/crossing/worker.c): its capabilities, and the system calls that would reach
 * beyond its calls (a seccomp filter, on x86-64). */
#ifndef GRADER_CROSSING_SYSTEM_CALLS_H
#define GRADER_CROSSING_SYSTEM_CALLS_H

/* Returns NULL, or why the process could not be restricted. It also makes the process
 * untraceable until a request says otherwise (wire.h: traceable). */
const char *give_up_system_calls(void);

#endif
