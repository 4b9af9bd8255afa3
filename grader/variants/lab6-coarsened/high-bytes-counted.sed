# The top bit of each byte is masked off, so bytes of 0x80 and above count as letters.
# expect: (non-letters-counted)
s|    int position = byte - 'a';|    int position = (byte \& 0x7F) - 'a';|
