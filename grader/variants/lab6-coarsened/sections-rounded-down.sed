# The slides' Strategy I with its section size rounded down (length / threads): the last
# length % threads bytes are never counted, and a text shorter than the grid counts nothing.
# expect: (tail-missing)
s|    uint64_t section = (length + threads - 1) / threads; // the slides' (size - 1) / threads + 1|    uint64_t section = length / threads;|
