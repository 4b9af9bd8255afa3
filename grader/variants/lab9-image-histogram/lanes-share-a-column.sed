# Every lane of a warp counts in lane 0's column, with plain (not atomic) adds read and written
# by the 32 lanes at once: the columns are what keeps the lanes apart, and without them the
# lanes' increments to one counter overwrite each other.
# expect: wrong histogram
s|^    unsigned int \*column = counters + (warp % copies) \* counters_per_copy + lane;$|    unsigned int *column = counters + (warp % copies) * counters_per_copy;|
s|^        atomicAdd((unsigned int \*)__cvta_shared_to_generic(counter), 1u);$|        *(unsigned int *)__cvta_shared_to_generic(counter) += 1;|
