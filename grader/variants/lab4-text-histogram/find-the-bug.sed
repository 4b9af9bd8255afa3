# The kernel drops the letter test, as the atomic kernel of the seed lecture notes does
# (Dillhoff indexes his 26 bins with data[i] - 'a': "the input is assumed to be lower case").
# Letters land right; '{' '|' count as y-z and '^' '_' '`' as a-d (-3 / 4 is 0); '}' '~' DEL
# land one past the bins, capitals and > ? @ [ \ ] on the grader's counters before them, and
# spaces, digits, most punctuation and bytes of 0x80 and above further out, where a write may
# fault instead. Either way the grader says it wrote outside.
# expect: wrote outside
# in the student tarball: the handout's find-the-bug
/__global__/,/^}/{
s|        int position = text\[i\] - 'a';|        int position = text[i] - 'a'; // the text is lowercase: 0 <= position < 26|
/        if (position >= 0 \&\& position < 26)/d
s|^            atomicAdd(&histogram\[position / LETTERS_PER_BIN\], 1ULL);|        atomicAdd(\&histogram[position / LETTERS_PER_BIN], 1ULL);|
}
