# The "contiguous" kernel of a seed's lecture notes (Dillhoff), which is really lab 5's
# uncoarsened one: each thread counts the one byte of its own number, while the launcher still
# sizes the grid for chars_per_thread bytes a thread, so only the first 1/chars_per_thread of
# the text is counted (right with 1 byte a thread only).
# expect: (tail-missing)
# in the student tarball: the handout's find-the-bug
/^    uint64_t begin = thread \* chars_per_thread;$/{N;N;N;s|.*|    if (thread < length)\n        count_byte(block_bins, text[thread]);|}
