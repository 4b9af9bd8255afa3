# Only thread 0 of each block counts.
# expect: increments were lost
s|    atomicAdd(count, 1ULL);|    if (threadIdx.x == 0)\n        atomicAdd(count, 1ULL);|
