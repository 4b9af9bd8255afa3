# The fast kernel never counts the pixels after the last 16-byte boundary.
# expect: (tail-missing)
/^    if (tail + thread < count)$/,/atomicAdd/d
