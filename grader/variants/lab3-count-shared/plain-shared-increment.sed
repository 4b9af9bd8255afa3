# The shared counter is incremented without an atomic: the block's threads race on it.
# expect: increments were lost
s|    atomicAdd(&block_count, 1u);|    block_count = block_count + 1;|
