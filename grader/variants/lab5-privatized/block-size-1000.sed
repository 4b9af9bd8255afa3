# Right, written differently: blocks of 1000 threads.
# expect: accepted
s|static const unsigned int threads_per_block = 256;|static const unsigned int threads_per_block = 1000;|
