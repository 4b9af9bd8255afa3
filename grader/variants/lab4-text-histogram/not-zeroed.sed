# The bins are never zeroed: the kernel adds to whatever the buffer held.
# expect: (not-zeroed)
/lab4_histogram_atomic(const char/,/^}/{/cudaMemset(d_histogram, 0/d}
