# No __syncthreads() between counting into part A's shared bins and committing them: a bin can
# be read before the block's other threads have added to it, so results vary from run to run.
# expect: wrong histogram
/histogram16_shared_kernel(const uint32_t/,/^}/{
/everyone has counted before the bins are committed/d
}
