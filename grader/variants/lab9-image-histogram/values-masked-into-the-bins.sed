# The shared kernel keeps the low four bits of a pixel, so a value of 16 or more is counted in
# the bin of value % 16 instead of in none.
# expect: (out-of-range-counted)
/histogram16_shared_kernel(const uint32_t/,/^}/{
s|^        uint32_t value = image\[i\];|        uint32_t value = image[i] \& 0xF;|
}
