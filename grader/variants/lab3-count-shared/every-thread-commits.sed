# Every thread adds the block's total to the global count, not just one.
# expect: counted several times
/if (threadIdx.x == 0)$/{N;/atomicAdd(count/s|if (threadIdx.x == 0)||}
