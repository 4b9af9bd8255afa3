# The private copies in global memory are never zeroed: cudaMalloc'ed memory holds leftovers.
# expect: wrong histogram
/cudaMemset(d_private_copies, 0, copies_bytes)/d
