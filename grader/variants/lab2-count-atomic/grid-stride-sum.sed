# Right, written differently: at most 64 blocks, each thread adding many values in a
# grid-stride loop.
# expect: accepted
s|    if (i < count)$|    for (; i < count; i += gridDim.x * blockDim.x)|
s|unsigned int blocks = (count + threads_per_block - 1) / threads_per_block;|unsigned int blocks = count < 64 * threads_per_block ? (count + threads_per_block - 1) / threads_per_block : 64;|
