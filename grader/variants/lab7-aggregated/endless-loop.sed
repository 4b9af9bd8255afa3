# The loop never advances: the kernel hangs, and the grader must stop it and say so.
# expect: ran past its time limit
# options: --filter aggregated/small_texts --timeout 10
s|         i += grid_threads) {|         i += 0) {|
