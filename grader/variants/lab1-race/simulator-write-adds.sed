# The simulator's write adds 1 to memory instead of storing the thread's New: no update is ever
# lost, so the simulated race gives the wrong Mem[x] whenever the threads interleave.
# expect: timing scenario 3
s|outcome.memory = new_value\[thread\];|outcome.memory = outcome.memory + 1;|
