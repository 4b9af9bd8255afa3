# A 32-bit thread index: past 4 GiB it wraps around and counts the start of the text again.
# expect: a 32-bit index
s|uint64_t i = (uint64_t)blockIdx.x \* blockDim.x + threadIdx.x;|unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;|
