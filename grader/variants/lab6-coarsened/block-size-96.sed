# Right, written differently: blocks of 96 threads.
# expect: accepted
s|static const unsigned int threads_per_block = 256;|static const unsigned int threads_per_block = 96;|
