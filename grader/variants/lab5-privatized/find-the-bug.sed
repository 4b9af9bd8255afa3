# The shared kernel zeroes and commits its bins with one thread a bin, as the GPU histogram of
# the seed slides does (Hong's 'if (threadIdx.x < NUMHIST)'), which assumes a block has at least
# as many threads as there are bins; and part B is launched on blocks of 4 threads. Bins q-t,
# u-x and y-z are never zeroed nor committed: those letters are lost, deterministically, and a
# text with none of them comes out right.
# expect: (bins-missing)
# in the student tarball: the handout's find-the-bug
/histogram_private_shared_kernel(const char/,/^}/{
s|^    for (unsigned int bin = threadIdx.x; bin < HISTOGRAM_BINS; bin += blockDim.x)$|    if (threadIdx.x < HISTOGRAM_BINS) // one thread a bin|
s|^        block_bins\[bin\] = 0;|        block_bins[threadIdx.x] = 0;|
s|^    for (unsigned int bin = threadIdx.x; bin < HISTOGRAM_BINS; bin += blockDim.x) {|    if (threadIdx.x < HISTOGRAM_BINS) {|
s|^        unsigned int count = block_bins\[bin\];|        unsigned int count = block_bins[threadIdx.x];|
s|^            atomicAdd(&histogram\[bin\], (unsigned long long)count);|            atomicAdd(\&histogram[threadIdx.x], (unsigned long long)count);|
}
/histogram_private_shared_kernel<<<blocks_for(length), threads_per_block>>>/,/d_histogram);/c\
    const unsigned int threads_per_small_block = 4; // fewer threads to compete for a shared bin\
    uint64_t small_blocks = (length + threads_per_small_block - 1) / threads_per_small_block;\
    histogram_private_shared_kernel<<<(unsigned int)small_blocks, threads_per_small_block>>>(\
        d_text, length, d_histogram);
