# Lab 9's reference as it was before issue 28: four copies of the counters (128 KB a block)
# whatever the GPU. Right where a block may have 128 KB (compute capability 8.0 and 9.0); on a T4
# or an RTX 30 or 40 (64 and 99 KB) its cudaFuncSetAttribute fails. make test's part limits
# (grader/tests/shared_memory_limits.py) grades it under each KIT_SHARED_MEMORY_PER_BLOCK, where
# it must fail so: the limit is enforced, not only read.
s|^    const size_t fitting = gpu_shared_memory_per_block() / copy_bytes;$|    const size_t fitting = most_counter_copies; // whatever the GPU|
