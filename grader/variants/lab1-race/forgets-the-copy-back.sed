# The program never copies the count back from the GPU, so it returns the 0 it started with.
# expect: must return 1
/cudaMemcpy(&count, d_count/d
