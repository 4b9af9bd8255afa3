# The fast kernel rounds the number of 16-byte vectors up: the last vector reads up to 15
# bytes past the end of the image, which are counted.
# expect: (read-past-end)
s|const uint64_t vector_count = (count - head) / 16;|const uint64_t vector_count = (count - head + 15) / 16;|
s|const uint64_t tail = head + vector_count \* 16;|const uint64_t tail = count;|
