# The fast kernel never counts the pixels before the first 16-byte boundary: an image starting
# off a boundary loses its first 1 to 15 pixels.
# expect: (head-missing)
/^    if (thread < head)$/,/atomicAdd/d
