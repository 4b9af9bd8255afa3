# Strategy I with each section's start in 32 bits: past 2^32 it wraps around, and the threads
# whose sections lie beyond 4 GiB count the start of the text again (the past-4-GiB test, on a
# grid of 65536 blocks, where the last sections start past 2^32).
# expect: on a text of 4294967553 bytes
s|    uint64_t begin = ((uint64_t)blockIdx.x \* blockDim.x + threadIdx.x) \* section;|    unsigned int begin = (blockIdx.x * blockDim.x + threadIdx.x) * (unsigned int)section;|
