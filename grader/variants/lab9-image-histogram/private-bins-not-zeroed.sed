# lab9_histogram256_private never zeroes d_histogram: the counts are added to its garbage.
# expect: (not-zeroed)
/^void lab9_histogram256_private(/,/^}/{
/cudaMemset(d_histogram, 0, BYTE_HISTOGRAM_BINS/d
}
