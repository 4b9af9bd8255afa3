# The CAS loop gives up when another thread got in first, so those additions are lost.
# expect: additions were lost
s|expected = found; // another thread got in first: retry on top of its sum|return __uint_as_float(found);|
