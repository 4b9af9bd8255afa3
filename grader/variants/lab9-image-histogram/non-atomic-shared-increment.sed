# Part A's shared kernel adds to its bins with a plain ++: threads of a block that meet on one
# bin lose each other's counts.
# expect: wrong histogram
/histogram16_shared_kernel(const uint32_t/,/^}/s|atomicAdd(&block_bins\[value\], 1u);|block_bins[value]++;|
