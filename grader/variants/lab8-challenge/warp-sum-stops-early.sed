# The shuffle reduction stops one step early: half of each warp's counts are dropped.
# expect: wrong histogram
s|for (int offset = 16; offset > 0; offset /= 2)|for (int offset = 16; offset > 1; offset /= 2)|
