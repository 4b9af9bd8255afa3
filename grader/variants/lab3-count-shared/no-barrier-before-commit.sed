# Thread 0 commits the block's count without waiting for the other threads to add to it.
# expect: increments were lost
# in the student tarball: lab 3's handout shows its report
s|__syncthreads(); // everybody has counted before the block's total is read||
