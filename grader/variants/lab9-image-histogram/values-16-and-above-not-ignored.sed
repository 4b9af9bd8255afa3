# The global kernel uses every pixel as a bin index, as the slides do (their images hold 0-14
# only): a value of 16 or more adds to a counter past the sixteen bins.
# expect: (wrote-outside)
# options: --filter global16/values
/histogram16_global_kernel(const uint32_t/,/^}/s|^        if (value < SMALL_HISTOGRAM_BINS)$|        if (true)|
