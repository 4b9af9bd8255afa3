# The chosen coarsening factor is 0: no thread would count anything.
# expect: returned 0
s|    return 16;|    return 0;|
