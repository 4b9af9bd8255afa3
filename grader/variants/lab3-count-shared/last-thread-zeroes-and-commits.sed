# Right, written differently: the block's last thread zeroes and commits, not thread 0.
# expect: accepted
s|threadIdx.x == 0|threadIdx.x == blockDim.x - 1|g
