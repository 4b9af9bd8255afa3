# No __syncthreads() between counting into the shared bins and committing them: a bin can be
# read before the block's other threads have added to it, so results vary from run to run.
# expect: wrong histogram
/everyone has counted before the bins are committed/d
