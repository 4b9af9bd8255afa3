# The private kernel takes the pixel count as an unsigned int: past 2^32 pixels it is cut to
# its low 32 bits, and only the first 257 pixels of the image past 4 GiB are counted.
# expect: (32-bit-index)
# options: --filter private256/past_4gib
s|__global__ void histogram256_private_kernel(const uint8_t \*pixels, uint64_t count,|__global__ void histogram256_private_kernel(const uint8_t *pixels, unsigned int count,|
