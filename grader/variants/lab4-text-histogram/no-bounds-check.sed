# The kernel has no i < length test, so the last block counts bytes past the end of the text.
# expect: (read-past-end)
# in the student tarball: lab 4's handout shows its report
/__global__/,/^}/s|if (i < length) {|{|
