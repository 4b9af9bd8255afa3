# The shared kernel's commit loop steps by one bin instead of by blockDim.x: thread t adds bins t
# to the last, so bin b is added b + 1 times a block (a-d once, y-z seven times).
# expect: (committed-unevenly)
/histogram_private_shared_kernel(const char/,/^}/s|for (unsigned int bin = threadIdx.x; bin < HISTOGRAM_BINS; bin += blockDim.x) {|for (unsigned int bin = threadIdx.x; bin < HISTOGRAM_BINS; bin++) {|
