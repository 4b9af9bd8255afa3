# Lab 1 done with an atomic: the count is right, but lab 1 is about the race it hides.
# expect: no update was lost
s|\*count = \*count + 1;|atomicAdd(count, 1ULL);|
