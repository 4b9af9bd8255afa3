# Right, written differently: the shared kernel on at most 512 blocks with a grid-stride loop.
# expect: accepted
/histogram_private_shared_kernel(const char/,/^}/s|    if (i < length) {|    for (; i < length; i += (uint64_t)gridDim.x * blockDim.x) {|
s|histogram_private_shared_kernel<<<blocks_for(length), threads_per_block>>>|histogram_private_shared_kernel<<<blocks_for(length) < 512 ? blocks_for(length) : 512, threads_per_block>>>|
