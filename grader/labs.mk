# The lab manifest: the kit's labs, in the order they are taught, and what the kit's tools need to
# know of each besides its folders. It is the one list of the labs: the Makefile includes it,
# ./grade reads it, and every Python tool reads it through grader/labs.py (which checks it:
# python3 grader/labs.py --check). Adding a lab is its folders and its entry here
# (docs/maintainers.md, "Adding a lab").
#
# Plain data in make's syntax: 'NAME := value' and 'LABS += lab', nothing else (no '$').
# A lab's name is labN-words, the same in every folder of it (labs/, solutions/, grader/,
# grader/variants/, grader/exploits/); its short name is labN. Its entry:
#
#   LABS += NAME                     the lab, after those it builds on
#   NAME.references := LAB ...       the labs whose reference solutions its grader links beside
#                                    the student's code, to time against and compare with
#   NAME.sanitize := text | ARGS     what its demo runs on under ./grade --sanitize: 'text' for
#                                    the first 20011 bytes of the Jargon File, or the demo's own
#                                    arguments
#   NAME.bench := KIND FUNCTION LABEL [; KIND FUNCTION LABEL ...]   (optional) what make bench
#                                    times of it: KIND letters (labs 4-8's shape) or pixels (lab
#                                    9's), a function of its reference (or bench/bench.c's
#                                    adapter of it), and the label of its row
#   NAME.main_loops := KERNEL ...    (optional) the kernels whose main loop a handout counts by
#                                    opcode: make results records them (bench/record_results.py)
#   NAME.limits := timed             (optional) the reference's layout depends on the GPU's shared
#                                    memory a block: make test's part limits times it under each
#                                    limit (grader/tests/shared_memory_limits.py); others untimed
#
# Policy is elsewhere: a lab's points in grader/points.conf (any lab not named there gets the '*'
# rules), its timing sizes and tables in its grader (grader/<lab>/grade_labN.c).

LABS += lab1-race
lab1-race.references := lab1-race
lab1-race.sanitize := 4 256

LABS += lab2-count-atomic
lab2-count-atomic.references := lab1-race lab2-count-atomic
lab2-count-atomic.sanitize := 4 256

LABS += lab3-count-shared
lab3-count-shared.references := lab2-count-atomic lab3-count-shared
lab3-count-shared.sanitize := 4 256

LABS += lab4-text-histogram
lab4-text-histogram.references := lab4-text-histogram
lab4-text-histogram.sanitize := text
lab4-text-histogram.bench := letters reference_lab4_histogram_atomic lab 4 (global atomics)

LABS += lab5-privatized
lab5-privatized.references := lab4-text-histogram lab5-privatized
lab5-privatized.sanitize := text
lab5-privatized.bench := letters reference_lab5_histogram_private_shared lab 5 (shared privatized)

LABS += lab6-coarsened
lab6-coarsened.references := lab5-privatized lab6-coarsened
lab6-coarsened.sanitize := text
lab6-coarsened.bench := letters lab6_reference_as_chosen lab 6 (coarsened)
lab6-coarsened.main_loops := histogram_contiguous_kernel histogram_interleaved_kernel histogram_sections_kernel

LABS += lab7-aggregated
lab7-aggregated.references := lab6-coarsened lab7-aggregated
lab7-aggregated.sanitize := text
lab7-aggregated.bench := letters reference_lab7_histogram_aggregated lab 7 (aggregated)

LABS += lab8-challenge
lab8-challenge.references := lab6-coarsened lab8-challenge
lab8-challenge.sanitize := text
lab8-challenge.bench := letters reference_lab8_histogram lab 8 (challenge)
lab8-challenge.main_loops := histogram_kernel
lab8-challenge.limits := timed

# The sanitizers' run: the shipped photograph, 512 x 512 pixels, part A in blocks of 5 threads
# (fewer than the 16 bins).
LABS += lab9-image-histogram
lab9-image-histogram.references := lab9-image-histogram
lab9-image-histogram.sanitize := grader/data/camera.pgm 5
lab9-image-histogram.bench := pixels reference_lab9_histogram256_private lab 9 private (a copy a block) ; \
                              pixels reference_lab9_histogram256 lab 9 (a column a lane)
lab9-image-histogram.main_loops := histogram256_lane_columns
lab9-image-histogram.limits := timed
