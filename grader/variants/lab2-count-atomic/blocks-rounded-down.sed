# The number of blocks is rounded down: the values of the last partial block are never added.
# expect: additions were lost
s|unsigned int blocks = (count + threads_per_block - 1) / threads_per_block;|unsigned int blocks = count / threads_per_block;|
