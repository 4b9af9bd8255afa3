# The bytes before the first 16-byte boundary are counted only when there are at least 4 of
# them, as a kernel that read the head a 4-byte word at a time would: a text starting 13, 14 or
# 15 bytes past a boundary loses its first 3, 2 or 1 bytes (the texts starting 5 and 9 bytes
# past one, with heads of 11 and 7, come out right).
# expect: (head-missing)
s|if (part == 0 ? i < head : i < length) {|if (part == 0 ? i < head \&\& head >= 4 : i < length) {|
