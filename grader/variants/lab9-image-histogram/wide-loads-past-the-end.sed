# The fast kernel rounds the number of 16-byte words up and counts no tail: the last word reads
# up to 15 bytes past the end of the image, which are counted.
# expect: (read-past-end)
s|const uint64_t word_count = (pixels - head_count) / 16;|const uint64_t word_count = (pixels - head_count + 15) / 16;|
s|const uint64_t tail_start = head_count + word_count \* 16;|const uint64_t tail_start = pixels;|
