# Right, written differently: at most 1024 blocks, each thread counting many bytes in a
# grid-stride loop.
# expect: accepted
s|    if (i < length) {|    for (; i < length; i += (uint64_t)gridDim.x * blockDim.x) {|
s|uint64_t blocks = (length + threads_per_block - 1) / threads_per_block;|uint64_t blocks = length < 1024ull * threads_per_block ? (length + threads_per_block - 1) / threads_per_block : 1024;|
