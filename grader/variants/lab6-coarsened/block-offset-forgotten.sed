# The contiguous kernel numbers its threads within the block only (threadIdx.x), forgetting the
# block's offset: every block counts the text's first block's share, and nothing else.
# expect: (block-offset-missing)
/histogram_contiguous_kernel(const char/,/^}/s|uint64_t thread = (uint64_t)blockIdx.x \* blockDim.x + threadIdx.x;|uint64_t thread = threadIdx.x;|
