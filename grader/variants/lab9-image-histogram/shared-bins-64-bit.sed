# Right, written differently: part A's shared bins are 64-bit counters.
# expect: accepted
/histogram16_shared_kernel(const uint32_t/,/^}/{
s|__shared__ unsigned int block_bins\[SMALL_HISTOGRAM_BINS\];|__shared__ unsigned long long block_bins[SMALL_HISTOGRAM_BINS];|
s|atomicAdd(&block_bins\[value\], 1u);|atomicAdd(\&block_bins[value], 1ull);|
s|unsigned int count = block_bins\[bin\];|unsigned long long count = block_bins[bin];|
s|atomicAdd(&histogram\[bin\], (unsigned long long)count);|atomicAdd(\&histogram[bin], count);|
}
