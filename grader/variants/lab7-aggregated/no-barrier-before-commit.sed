# commit_block_bins reads the bins without waiting for the block's other threads.
# expect: wrong histogram
/^__device__ void commit_block_bins/,/^}/{/__syncthreads();/d}
