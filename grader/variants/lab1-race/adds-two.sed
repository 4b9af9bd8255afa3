# Each thread adds 2: the count is wrong even for a single thread, where nothing can race.
# expect: one thread alone cannot race
s|\*count = \*count + 1;|*count = *count + 2;|
