# The simulator's read takes the initial value instead of what memory holds now, so a thread
# that runs after another still sees the old value.
# expect: timing scenario 1
s|outcome.old\[thread\] = outcome.memory;|outcome.old[thread] = initial_memory;|
