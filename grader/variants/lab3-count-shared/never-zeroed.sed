# The shared counter is never zeroed: it starts with whatever the last block on that
# multiprocessor left there.
# expect: zeroed
/if (threadIdx.x == 0)$/{N;/block_count = 0;/d}
