# The run still open when the loop ends is never added to the bins.
# expect: likely cause
/^    if (run_length > 0)$/{N;/block_bins/d}
