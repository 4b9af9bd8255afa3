# Right, written differently: a 64-bit shared counter.
# expect: accepted
s|__shared__ unsigned int block_count;|__shared__ unsigned long long block_count;|
s|atomicAdd(&block_count, 1u);|atomicAdd(\&block_count, 1ULL);|
