# The host loop runs while i <= pixels: one pixel past the end of the image is counted.
# expect: (read-past-end)
s|    for (uint64_t i = 0; i < pixels; i++)|    for (uint64_t i = 0; i <= pixels; i++)|
