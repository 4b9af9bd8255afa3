# Right, written differently: (*count)++ is the same read, add and write.
# expect: accepted
s|\*count = \*count + 1;|(*count)++;|
