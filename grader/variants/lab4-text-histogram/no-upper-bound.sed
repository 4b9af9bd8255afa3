# The letter test lacks its upper bound: '}' and '~' land in an eighth bin that does not exist.
# expect: wrote outside the 7 bins
/__global__/,/^}/s|position >= 0 \&\& position < 26|position >= 0|
