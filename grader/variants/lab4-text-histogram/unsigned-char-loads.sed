# Right, written differently: bytes read as unsigned char (high bytes give positions above 25).
# expect: accepted
/__global__/,/^}/s|int position = text\[i\] - 'a';|int position = (int)((const unsigned char *)text)[i] - 'a';|
