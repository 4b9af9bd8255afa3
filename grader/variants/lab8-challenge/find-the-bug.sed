# The bin of a seed's slides (the Serbian lecture's privatized kernel, buffer[i] / 4): the
# nibble is chosen from the byte itself, not from its position after 'a'. For a letter, byte / 4
# is 24 to 30, a shift of 96 to 120 bits: undefined in C; on the H200 every increment came out
# 0, and nothing was counted. Right on texts without letters.
# expect: (nothing-counted)
# in the student tarball: the handout's find-the-bug
s|return position < 26 ? 1u << (4 \* (position / LETTERS_PER_BIN)) : 0u;|return position < 26 ? 1u << (4 * (byte / LETTERS_PER_BIN)) : 0u;|
