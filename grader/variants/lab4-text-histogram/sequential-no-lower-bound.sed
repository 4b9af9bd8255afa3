# The sequential histogram tests only the upper end of the range: every byte below 'a' (capitals,
# digits, spaces, UTF-8) gives a negative bin, which writes below the histogram. The CPU tests put
# guard counters around the bins, as the GPU's do, so the grader says so and is not itself hurt.
# expect: wrote outside
0,/if (position >= 0 && position < 26)/s//if (position < 26)/
