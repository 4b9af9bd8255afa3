# The fast kernel's tail code takes 255 for padding and skips it: a pixel of value 255 after the
# last 16-byte boundary is never counted (the body's 255s are).
# expect: (value-255-missing)
s|^    if (blockIdx.x == 0 \&\& threadIdx.x < tail_count)$|    if (blockIdx.x == 0 \&\& threadIdx.x < tail_count \&\& tail[threadIdx.x] != 255)|
