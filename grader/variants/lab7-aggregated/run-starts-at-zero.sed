# A new run starts with length 0 instead of 1: the letter that starts each run is lost.
# expect: wrong histogram
/histogram_aggregated_kernel(const char/,/^}/s|            run_length = 1;|            run_length = 0;|
