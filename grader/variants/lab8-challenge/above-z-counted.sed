# The table counts the two bytes after 'z' ('{' and '|') in the last bin.
# expect: (above-z-counted)
s|return position < 26 ?|return position < 28 ?|
