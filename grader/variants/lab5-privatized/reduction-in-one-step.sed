# Part C's reduction takes one step of one block a bin, as if a block's tree could sum every
# partial histogram: it sums the first 512 (the first 128 KiB of the text) and stops.
# expect: (tail-missing)
s|        unsigned int reduce_blocks = (count + values_a_reduce_block - 1) / values_a_reduce_block;|        unsigned int reduce_blocks = 1; // one tree a bin sums every partial histogram|
