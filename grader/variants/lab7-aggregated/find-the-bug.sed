# The aggregated loop of a seed's lecture notes (Dillhoff), which takes a byte's bin straight
# from c - 'a' with no letter-range test: '^', '_' and '`' land in bin a-d (the division
# truncates -1..-3 to 0), '{' and '|' in bin y-z, '}', '~' and DEL in bin 7, past the shared
# bins, and the runs of spaces, capitals, digits and punctuation in negative bins, before them
# (on the H200 memory the kernel does not otherwise use; undefined anywhere). Right on the
# texts of lowercase letters only, and on English-like text, which has none of the bytes
# ^ _ ` { | } ~ DEL.
# expect: (non-letters-counted)
# in the student tarball: the handout's find-the-bug
/^__global__ void histogram_aggregated_kernel(/,/^}/{
s|^        int bin = bin_of(text\[i\]);$|        int bin = (text[i] - 'a') / LETTERS_PER_BIN;|
/^        if (bin < 0)$/{N;d}
}
