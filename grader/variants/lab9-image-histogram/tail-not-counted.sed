# The fast kernel never counts the pixels after the last 16-byte boundary.
# expect: (tail-missing)
/^    if (blockIdx.x == 0 && threadIdx.x < tail_count)$/,/atomicAdd/d
