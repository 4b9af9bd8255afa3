# The bytes after the last 16-byte boundary are never counted.
# expect: (tail-missing)
s|if (part == 0 ? i < head : i < length) {|if (part == 0 \&\& i < head) {|
