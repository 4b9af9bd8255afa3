# The fast kernel rounds the number of 16-byte words up and counts no tail: the last word reads
# up to 15 bytes past the end of the image, which are counted.
# expect: (read-past-end)
s|image.word_count = (pixels - image.head_count) / 16;|image.word_count = (pixels - image.head_count + 15) / 16;|
s|image.tail_start = image.head_count + image.word_count \* 16;|image.tail_start = pixels;|
