# No __syncthreads() between zeroing part A's shared bins and counting into them: a warp may add
# to a bin before warp 0 has zeroed it, and the count is lost. Warp 0 zeroes long before the
# others' first pixel arrives from memory, so no run shows it, nor compute-sanitizer's racecheck
# (it does not weigh a store against an atomic); the machine code shows the missing barrier.
# expect: (no-barrier-after-zeroing)
/histogram16_shared_kernel(const uint32_t/,/^}/{
/every bin is zero before anyone counts/d
}
