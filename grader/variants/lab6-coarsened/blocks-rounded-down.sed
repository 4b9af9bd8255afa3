# The number of blocks is rounded down: the partial last block's bytes are never counted.
# expect: (tail-missing)
s|uint64_t blocks = (length + chars_per_block - 1) / chars_per_block;|uint64_t blocks = length / chars_per_block + (length < chars_per_block);|
