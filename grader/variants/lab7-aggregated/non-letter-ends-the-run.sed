# Right, written differently: a non-letter flushes and ends the run instead of being skipped.
# expect: accepted
/histogram_aggregated_kernel(const char/,/^}/s|            continue; // a non-letter neither ends nor extends the run|            { if (run_length > 0) atomicAdd(\&block_bins[run_bin], run_length); run_bin = -1; run_length = 0; continue; }|
