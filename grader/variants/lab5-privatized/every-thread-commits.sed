# Every thread adds all seven shared bins to the result, instead of each bin once per block.
# expect: (multiplied)
/histogram_private_shared_kernel/,/^}/s|for (unsigned int bin = threadIdx.x; bin < HISTOGRAM_BINS; bin += blockDim.x) {|for (unsigned int bin = 0; bin < HISTOGRAM_BINS; bin++) {|
