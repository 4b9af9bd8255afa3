# Right, written differently: 32 blocks a multiprocessor for part B, each counting fewer pixels.
# expect: accepted
s|static const unsigned int blocks_per_multiprocessor = 4;|static const unsigned int blocks_per_multiprocessor = 32;|
