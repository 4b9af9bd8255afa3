# Right, written differently: 33 bytes a thread and 3 blocks per multiprocessor.
# expect: accepted
s|    return 16;|    return 33;|
s|return 8 \* (unsigned int)multiprocessors;|return 3 * (unsigned int)multiprocessors;|
