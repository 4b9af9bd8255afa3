# The grid-stride loop stops after its first pass over the grid.
# expect: (tail-missing)
s|         i += grid_threads)|         i += length)|
