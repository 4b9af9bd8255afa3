# Right on a GPU whose blocks may have 128 KB of shared memory (compute capability 8.0 and 9.0),
# as the reference was before issue 28: four copies of the counters whatever the GPU. On a T4 or
# an RTX 30 or 40 (64 and 99 KB a block) its cudaFuncSetAttribute fails; make test's part limits
# grades it under KIT_SHARED_MEMORY_PER_BLOCK=99K, where it must fail so.
# expect: accepted
s|^    const size_t fitting = gpu_shared_memory_per_block() / copy_bytes;$|    const size_t fitting = most_counter_copies; // whatever the GPU|
