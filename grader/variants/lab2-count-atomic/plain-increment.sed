# The count of lab 1 again: a plain read-add-write instead of atomicAdd.
# expect: increments were lost
s|atomicAdd(count, 1ULL);|*count = *count + 1;|
