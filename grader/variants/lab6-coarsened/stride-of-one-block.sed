# The interleaved loop strides by one block instead of the whole grid: blocks count each
# other's bytes.
# expect: wrong histogram
s|         i += grid_threads)|         i += blockDim.x)|
