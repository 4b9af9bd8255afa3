# Every thread of a block adds all 256 shared bins to the result, instead of each bin once per
# block.
# expect: (multiplied)
/__device__ void commit_block_bins(/,/^}/s|for (unsigned int bin = threadIdx.x; bin < BYTE_HISTOGRAM_BINS; bin += blockDim.x) {|for (unsigned int bin = 0; bin < BYTE_HISTOGRAM_BINS; bin++) {|
