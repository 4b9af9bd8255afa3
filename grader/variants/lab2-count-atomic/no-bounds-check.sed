# The CAS sum kernel has no i < count test: the last block adds values past the end.
# expect: values past the end of the array were added
/cas_float_sum_kernel/,/^}/{/if (i < count)/d}
