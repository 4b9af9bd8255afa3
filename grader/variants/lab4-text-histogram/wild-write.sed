# A bin index gone wild: the kernel writes far outside its buffers and faults.
# expect: a kernel read or wrote outside its buffers
# options: --filter atomic/distributions
s|atomicAdd(&histogram\[position / LETTERS_PER_BIN\], 1ULL);|atomicAdd(\&histogram[position * 100000000ULL], 1ULL);|
