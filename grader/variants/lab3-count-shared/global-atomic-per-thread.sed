# Every thread adds to the global count directly: right, but no shared memory is used, so it is
# lab 2 again.
# expect: technique missing
s|    atomicAdd(&block_count, 1u);|    atomicAdd(count, 1ULL);|
