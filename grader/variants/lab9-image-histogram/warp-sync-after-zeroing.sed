# __syncwarp() in place of the __syncthreads() between zeroing part A's shared bins and counting
# into them: a warp waits for its own lanes, not for warp 0's zeroing, so the race stays. CUDA
# 13.0 leaves no instruction of it between the store and the atomic, for sm_75 and sm_90 alike
# (docs/results/cpu-syncwarp-sass-66819f0-2026-11-28.log); the barrier check counts a BAR only.
# expect: (no-barrier-after-zeroing)
/histogram16_shared_kernel(const uint32_t/,/^}/{
s|__syncthreads(); // every bin is zero before anyone counts|__syncwarp(); // every bin is zero before anyone counts|
}
