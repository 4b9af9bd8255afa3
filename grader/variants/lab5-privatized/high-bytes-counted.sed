# The shared kernel masks off the top bit of each byte, so bytes of 0x80 and above count as
# letters.
# expect: (non-letters-counted)
/histogram_private_shared_kernel(const char/,/^}/s|int position = text\[i\] - 'a';|int position = (text[i] \& 0x7F) - 'a';|
