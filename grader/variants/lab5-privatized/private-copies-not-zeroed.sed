# The private copies in global memory are never zeroed: the pool hands back memory holding the
# counts of an earlier call.
# expect: wrong histogram
/cudaMemsetAsync(d_private_copies, 0, copies_bytes, 0)/d
