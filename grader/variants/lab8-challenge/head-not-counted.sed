# The bytes before the first 16-byte boundary are never counted.
# expect: (head-missing)
s|if (part == 0 ? i < head : i < length) {|if (part == 1 \&\& i < length) {|
