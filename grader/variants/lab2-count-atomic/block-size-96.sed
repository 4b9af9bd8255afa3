# Right, written differently: 96 threads a block, not a power of two.
# expect: accepted
s|const unsigned int threads_per_block = 256;|const unsigned int threads_per_block = 96;|
