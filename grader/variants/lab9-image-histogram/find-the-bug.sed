# Part A's shared kernel zeroes and commits its bins one thread a bin, as the GPU histogram of
# the seed slides does (Hong's 'if (threadIdx.x < NUMHIST)'), which assumes a block has at least
# as many threads as there are bins. In blocks of 16 threads or more it is right; in blocks of
# 1, 5 or 15 threads, bins from blockDim.x up are never committed.
# expect: (bins-past-block-size)
# in the student tarball: the handout's find-the-bug
/histogram16_shared_kernel(const uint32_t/,/^}/{
s|^    for (unsigned int bin = threadIdx.x; bin < SMALL_HISTOGRAM_BINS; bin += blockDim.x)$|    if (threadIdx.x < SMALL_HISTOGRAM_BINS) // one thread a bin|
s|^        block_bins\[bin\] = 0;|        block_bins[threadIdx.x] = 0;|
s|^    for (unsigned int bin = threadIdx.x; bin < SMALL_HISTOGRAM_BINS; bin += blockDim.x) {|    if (threadIdx.x < SMALL_HISTOGRAM_BINS) {|
s|^        unsigned int count = block_bins\[bin\];|        unsigned int count = block_bins[threadIdx.x];|
s|^            atomicAdd(&histogram\[bin\], (unsigned long long)count);|            atomicAdd(\&histogram[threadIdx.x], (unsigned long long)count);|
}
