# Right, written differently: part A's grid covers the image one thread a pixel (up to
# max_blocks blocks, then the loop takes over), every bin committed even when it is 0.
# expect: accepted
s|static const unsigned int max_blocks = 1u << 20;|static const unsigned int max_blocks = 0x7FFFFFFFu;|
/histogram16_shared_kernel(const uint32_t/,/^}/s|^        if (count > 0)$|        if (true)|
