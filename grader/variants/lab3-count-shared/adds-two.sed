# Each thread adds 2 to the block's counter: every thread is counted twice.
# expect: counted several times
s|    atomicAdd(&block_count, 1u);|    atomicAdd(\&block_count, 2u);|
