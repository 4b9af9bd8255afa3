# The slides' GPU histogram: one thread a pixel and no i < pixels test, so the last block's
# extra threads read pixels past the end of the image.
# expect: (read-past-end)
/histogram16_global_kernel(const uint32_t/,/^}/{
s|^    for (uint64_t i = (uint64_t)blockIdx.x \* blockDim.x + threadIdx.x; i < pixels; i += threads) {|    {\
        uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;|
s|^    const uint64_t threads = (uint64_t)gridDim.x \* blockDim.x;|    (void)pixels;|
}
