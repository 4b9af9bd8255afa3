# Part B adds each run with a 32-bit atomic aimed at the wrong half of the 64-bit bin.
# expect: wrong histogram
s|                atomicAdd(&histogram\[run_bin\], run_length);|                atomicAdd((unsigned int *)\&histogram[run_bin] + 1, (unsigned int)run_length);|
