# The program never reads the events' elapsed time, so it reports none.
# expect: must store the kernel's time
/cudaEventElapsedTime(elapsed_ms, start, stop)/d
