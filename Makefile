# The CUDA atomics and histogram lab kit. Start with README.md.
#
#   make lab5            build lab 5 from your code: build/student/lab5-privatized/{grader,demo}
#   make solution-lab5   the same from the reference solution
#   make all             every lab, yours and the solutions
#   make test            build everything and run every test (see README.md)
#   make bench           time every lab's reference, CUB and a copy on 1 GiB inputs (GPU)
#   make lessons         the controlled experiments behind the handouts' explanations (GPU)
#   make results         regenerate every recorded log the docs quote, on this GPU (docs/results, docs/bench)
#   make bench-grade     time ./grade on every lab's reference: how long feedback takes (GPU)
#   make dist            the students' tarball, without the solutions (build/dist/)
#   make kit DEST=dir    the student kit, unpacked, in a new folder (what make dist packs)
#   make gradescope      Gradescope autograder bundles, one a lab (build/gradescope/)
#   make clean           remove build/
#
# CUDA_ARCH picks the GPU architectures (compute capabilities without the dot): by default
# the GPU in this machine, or 75 80 86 89 90 when there is none. For example: make CUDA_ARCH=90

# The labs, in order, and what the build needs to know of each (what its grader links, what
# make bench times of it): the lab manifest, grader/labs.mk, the one list of them
# (docs/maintainers.md, "Adding a lab").
include grader/labs.mk
# The labs whose handout walks through a complete program of their own, labs/<lab>/primer.cu:
# make <lab> builds it into build/student/<lab>/primer (see PRIMER_RULES).
PRIMER_LABS := $(patsubst labs/%/primer.cu,%,$(wildcard $(LABS:%=labs/%/primer.cu)))
# lab5-privatized -> lab5
short = $(firstword $(subst -, ,$(1)))
# make bench times the references of the labs whose entry has a bench line.
BENCH_REFERENCES := $(foreach lab,$(LABS),$(if $($(lab).bench),$(lab)))

# The student distribution (make dist) has no solutions (see REFERENCE_RULE).
HAVE_SOLUTIONS := $(wildcard solutions/$(firstword $(LABS))/$(call short,$(firstword $(LABS))).cu)

CUDA_HOME ?= /usr/local/cuda
NVCC ?= $(CUDA_HOME)/bin/nvcc
CC := gcc
OBJCOPY ?= objcopy

DETECTED_ARCH := $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null \
                   | grep -E '^[0-9]+\.[0-9]+$$' | head -n 1 | tr -d .)
CUDA_ARCH ?= $(DETECTED_ARCH)
# Where the architectures come from, for the check of the toolkit and the GPU (build/flags).
ARCH_FROM := $(if $(filter file,$(origin CUDA_ARCH)),detected,given)
ifeq ($(strip $(CUDA_ARCH)),)
override CUDA_ARCH := 75 80 86 89 90
NO_GPU_HERE := 1
endif
# A toolkit or GPU older than the kit supports is refused before anything is built, in one line
# (grader/toolkit.py holds the floor; README.md, "What you need").
ifneq ($(filter-out clean help,$(MAKECMDGOALS)),)
TOOLKIT_REFUSAL := $(shell python3 grader/toolkit.py check --nvcc '$(NVCC)' --cuda-arch '$(CUDA_ARCH)' \
                     --arch-from $(ARCH_FROM))
ifneq ($(TOOLKIT_REFUSAL),)
$(error $(TOOLKIT_REFUSAL))
endif
endif
# Machine code for each architecture, and PTX of the newest so that later GPUs can run it too.
GENCODE := $(foreach arch,$(CUDA_ARCH),-gencode arch=compute_$(arch),code=sm_$(arch)) \
           -gencode arch=compute_$(lastword $(CUDA_ARCH)),code=compute_$(lastword $(CUDA_ARCH))

# Criterion from a folder rather than the system (the GPU machine gets it that way).
ifneq ($(CRITERION_PREFIX),)
CRITERION_CPPFLAGS := -I$(CRITERION_PREFIX)/include
CRITERION_LDFLAGS := -L$(CRITERION_PREFIX)/lib/x86_64-linux-gnu \
                     -Xlinker -rpath=$(CRITERION_PREFIX)/lib/x86_64-linux-gnu
endif

CFLAGS := -std=c11 -O2 -g -Wall -Wextra -MMD -MP
CPPFLAGS := -Icommon -Igrader/harness -Igrader/results -Igrader/crossing -I$(CUDA_HOME)/include $(CRITERION_CPPFLAGS) \
            -DKIT_CUDA_HOME='"$(CUDA_HOME)"'
NVCC_COMMON_FLAGS := -O3 -g -std=c++17 -Xcompiler -Wall,-Wextra -MMD -MP -Icommon
# KIT_LEGACY_LAUNCH=1: nvcc's kernel launches as a CUDA 12 toolkit compiles them (cudaLaunchKernel
# with the kernel's host function, not CUDA 13's __cudaLaunchKernel with its handle), so that
# this toolkit builds and tests the kit as CUDA 12 would (README.md, "What you need").
ifneq ($(KIT_LEGACY_LAUNCH),)
NVCC_COMMON_FLAGS += -D__NV_LEGACY_LAUNCH -Xcompiler -D__NV_LEGACY_LAUNCH
endif
NVCCFLAGS := $(NVCC_COMMON_FLAGS) $(GENCODE)
# The variants of grader/variants/ are graded only on the GPU at hand: machine code for the
# newest architecture is enough for them (and keeps a GPU-less build of all of them short). make
# kit builds those the tarball ships (grader/kit.py) for every architecture, as the
# references: VARIANTS_FOR_EVERY_ARCH=1.
VARIANT_NVCCFLAGS := $(if $(VARIANTS_FOR_EVERY_ARCH),$(NVCCFLAGS),$(NVCC_COMMON_FLAGS) \
                     -gencode arch=compute_$(lastword $(CUDA_ARCH)),code=sm_$(lastword $(CUDA_ARCH)))
LDFLAGS := $(CRITERION_LDFLAGS)
# A grader tells its workers which allocations it frees (grader/crossing/proxy.c).
GRADER_LDFLAGS := $(LDFLAGS) -Xlinker --wrap=cudaFree
# A worker (grader/crossing/worker.c) sees every kernel launch of its process: nvcc's launch call
# goes through it first (CUDA 13's __cudaLaunchKernel, CUDA 12's cudaLaunchKernel), and it tells
# the grader which kernels ran (the technique checks) and which streams were made (the
# non-blocking-stream check).
# The programs that run kernels of the labs (the workers, make bench, make lessons) hold them to
# KIT_SHARED_MEMORY_PER_BLOCK where it is set: common/device.c wraps these calls.
SHARED_MEMORY_LIMIT_LDFLAGS := -Xlinker --wrap=cudaFuncSetAttribute -Xlinker --wrap=cudaDeviceGetAttribute
WORKER_LDFLAGS := -Xlinker --wrap=__cudaLaunchKernel -Xlinker --wrap=__cudaLaunchKernel_ptsz \
                  -Xlinker --wrap=cudaLaunchKernel -Xlinker --wrap=cudaLaunchKernel_ptsz \
                  -Xlinker --wrap=cudaStreamCreateWithFlags -Xlinker --wrap=cudaStreamCreateWithPriority \
                  $(SHARED_MEMORY_LIMIT_LDFLAGS)

COMMON := cuda_check timing inputs timed_inputs reference repeated_text compare report device counting histogram_demo \
          bandwidth cub_histogram l2_cache images image_reference image_demo
COMMON_OBJECTS := $(COMMON:%=build/common/%.o)
# The harness writes the grading record that the results model reads (grader/results/records.c),
# and hands every call of the code under test to a worker (grader/crossing/crossing.h).
HARNESS_OBJECTS := $(patsubst grader/harness/%.c,build/harness/%.o,$(wildcard grader/harness/*.c)) \
                   build/results/records.o build/crossing/proxy.o build/crossing/wire.o \
                   build/crossing/baselines/baseline-proxies.o
# A grader links the baselines' proxies in place of CUB's code, which runs in a worker.
GRADER_COMMON_OBJECTS := $(filter-out build/common/cub_histogram.o,$(COMMON_OBJECTS))
# grader/variants/<lab>/<name>.sed -> <lab>/<name>, graded from build/variant/<name>/<lab>/grader
VARIANTS := $(patsubst grader/variants/%.sed,%,$(wildcard grader/variants/*/*.sed))
VARIANT_GRADERS := $(foreach variant,$(VARIANTS),build/variant/$(notdir $(variant))/$(patsubst %/,%,$(dir $(variant)))/grader)
UNIT_OBJECTS := $(patsubst grader/unit/%.c,build/unit/%.o,$(wildcard grader/unit/*.c))
# A worker's own parts: its loop, the wire, and what it gives up before the code under test runs.
WORKER_OBJECTS := build/crossing/worker.o build/crossing/wire.o build/crossing/system_calls.o

.PHONY: help all test bench bench-inputs lessons results bench-grade dist kit kit-references gradescope references clean criterion FORCE $(foreach lab,$(LABS),$(call short,$(lab)) solution-$(call short,$(lab)))
.DEFAULT_GOAL := help

help:
	@sed -n '2,16p' Makefile | sed 's/^# \{0,1\}//'

all: $(foreach lab,$(LABS),$(call short,$(lab))) build/unit/unit-tests build/bench/bench build/bench/lessons build/bench/timed_inputs_speed \
     build/results/results $(if $(HAVE_SOLUTIONS),$(foreach lab,$(LABS),solution-$(call short,$(lab))) \
     $(VARIANT_GRADERS))

# Every lab's reference, compiled (make dist ships them).
references: $(LABS:%=build/reference/%.o)

# Gradescope's autograder bundles, one a lab: build/gradescope/<lab>.zip (docs/instructors.md).
gradescope: dist
	@python3 grader/gradescope/make_bundles.py

# The student kit, in a new folder DEST: the committed tree less what .gitattributes marks
# export-ignore (the solutions, the kit's tests, the instructors' scripts), with the references
# and the variants the handouts use compiled into prebuilt/ (grader/kit.py). KIT_LABS: the
# references and variants of those labs only (./grade-class grades one lab).
kit:
	@if [ ! -f grader/kit.py ]; then \
	  echo "make kit makes the student kit from the kit's repository; this is a copy of that kit" \
	       "already"; exit 2; fi
	@python3 grader/kit.py --cuda-arch "$(CUDA_ARCH)" $(if $(filter-out undefined,$(origin KIT_LABS)),--labs "$(KIT_LABS)") \
	  "$(DEST)"

# The references make kit compiles: those the graders of KIT_LABS link (default: every lab's).
KIT_REFERENCE_LABS := $(if $(filter-out undefined,$(origin KIT_LABS)),$(KIT_LABS),$(LABS))
kit-references: $(patsubst %,build/reference/%.o,$(sort $(KIT_REFERENCE_LABS) \
                  $(foreach lab,$(KIT_REFERENCE_LABS),$($(lab).references))))

# The students' tarball: make kit, for every architecture a class is likely to have whatever
# GPU (or none) this machine has, packed: build/dist/cuda-histogram-labs.tar.gz.
DIST_ARCH := 75 80 86 89 90
dist:
	@if [ ! -f grader/kit.py ]; then \
	  echo "make dist makes the student tarball from the kit's repository; this is a copy of that" \
	       "tarball already"; exit 2; fi
	@rm -rf build/dist
	@python3 grader/kit.py --cuda-arch "$(DIST_ARCH)" build/dist/cuda-histogram-labs
	@tar -czf build/dist/cuda-histogram-labs.tar.gz -C build/dist cuda-histogram-labs
	@echo "make dist: build/dist/cuda-histogram-labs.tar.gz ($$(du -h build/dist/cuda-histogram-labs.tar.gz | cut -f1))"

# The build of everything runs in parallel, one job a core. Without a GPU here (and no
# CUDA_ARCH given) nothing it builds can run on one, so make test builds for the newest
# architecture only, a third of the compile time (make dist still builds the tarball's
# references for all of them).
TEST_ARCH := $(if $(NO_GPU_HERE),CUDA_ARCH=$(lastword $(CUDA_ARCH)))
test:
	@if [ ! -f grader/tests/run_tests.py ]; then \
	  echo "make test checks the kit itself and comes with its repository, not with the student" \
	       "tarball: grade a lab with ./grade labN"; exit 2; fi
	@$(MAKE) --no-print-directory -s -j$$(nproc) $(TEST_ARCH) all
	@$(TEST_ARCH) python3 grader/tests/run_tests.py

clean:
	rm -rf build bench/__pycache__ grader/tests/__pycache__

# Rebuild everything when the compiler flags change (another CUDA_ARCH, say). Nothing is written
# when nothing changed: ./grade-class builds a submission in a kit it may not write.
build/flags: FORCE
	@mkdir -p build
	@echo '$(NVCC) $(NVCCFLAGS) $(CC) $(CFLAGS) $(CPPFLAGS)' | cmp -s - $@ \
	  || echo '$(NVCC) $(NVCCFLAGS) $(CC) $(CFLAGS) $(CPPFLAGS)' > $@
	@echo '$(CUDA_ARCH)' | cmp -s - build/cuda-arch || echo '$(CUDA_ARCH)' > build/cuda-arch

# Installs Criterion if it is missing and we may; otherwise says how.
build/criterion.ok: grader/ensure-criterion.sh
	@mkdir -p build
	@CC='$(CC)' CRITERION_PREFIX='$(CRITERION_PREFIX)' bash $<
	@touch $@
criterion: build/criterion.ok

build/common/%.o: common/%.c build/flags
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

build/common/%.o: common/%.cu build/flags
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -c $< -o $@

build/harness/%.o: grader/harness/%.c build/flags | build/criterion.ok
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

build/crossing/%.o: grader/crossing/%.c build/flags | build/criterion.ok
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Igrader/crossing $(CFLAGS) -c $< -o $@

build/crossing/baselines.o: grader/crossing/baselines.cu build/flags
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -Igrader/crossing -c $< -o $@

# One list of crossings (grader/<lab>/crossings.h) made into one side: the proxies a grader
# links, or the thunks a worker links, of the student's functions or of the references'.
CROSSING_SIDE_student-proxies := -DCROSSING_PROXIES -DCROSSING_TARGET=CROSSING_STUDENT -DCROSSING_PREFIX=
CROSSING_SIDE_student-thunks := -DCROSSING_TARGET=CROSSING_STUDENT -DCROSSING_PREFIX=
CROSSING_SIDE_reference-proxies := -DCROSSING_PROXIES -DCROSSING_TARGET=CROSSING_REFERENCE \
                                   -DCROSSING_PREFIX=reference_
CROSSING_SIDE_reference-thunks := -DCROSSING_TARGET=CROSSING_REFERENCE -DCROSSING_PREFIX=reference_
CROSSING_SIDE_baseline-proxies := -DCROSSING_PROXIES -DCROSSING_TARGET=CROSSING_REFERENCE -DCROSSING_PREFIX=
CROSSING_SIDE_baseline-thunks := -DCROSSING_TARGET=CROSSING_REFERENCE -DCROSSING_PREFIX=
define CROSSING_RULES
build/crossing/$(1)/%.o: grader/crossing/crossings.c grader/$(1)/crossings.h grader/crossing/crossing.h \
                         build/generated/reference/$(1).h build/flags | build/criterion.ok
	@mkdir -p $$(@D)
	$$(CC) $$(CPPFLAGS) -Igrader/crossing -Ilabs/$(1) $$(CFLAGS) $$(CROSSING_SIDE_$$*) \
	  '-DCROSSING_LIST="../$(1)/crossings.h"' \
	  '-DCROSSING_DECLARATIONS="../../build/generated/reference/$(1).h"' -c $$< -o $$@

# The references' worker of a lab: the references its grader compares with, and the baselines.
build/reference/$(1)/worker: $(WORKER_OBJECTS) \
                             $($(1).references:%=build/crossing/%/reference-thunks.o) \
                             $($(1).references:%=build/reference/%.o) build/crossing/baselines/baseline-thunks.o \
                             build/crossing/baselines.o $(COMMON_OBJECTS)
	@mkdir -p $$(@D)
	$$(NVCC) $$(WORKER_LDFLAGS) $$^ -o $$@
endef
$(foreach lab,$(LABS),$(eval $(call CROSSING_RULES,$(lab))))

build/crossing/baselines/%.o: grader/crossing/crossings.c grader/crossing/baselines.h grader/crossing/crossing.h \
                              build/flags | build/criterion.ok
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Igrader/crossing $(CFLAGS) $(CROSSING_SIDE_$*) '-DCROSSING_LIST="baselines.h"' \
	  -c $< -o $@

build/unit/%.o: grader/unit/%.c build/flags | build/criterion.ok
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Ilabs/lab1-race -Ibench $(CFLAGS) -c $< -o $@

# results: the results model, which decides a grading's verdict and points and writes every
# report from the grading record (pure C, no CUDA: runs anywhere).
RESULTS_OBJECTS := build/results/points.o build/results/records.o build/results/model.o \
                   build/results/reports.o
build/results/%.o: grader/results/%.c build/flags
	@mkdir -p $(@D)
	$(CC) -Igrader/results $(CFLAGS) -c $< -o $@

build/results/results: build/results/results.o $(RESULTS_OBJECTS)
	$(CC) $^ -o $@ -lm

# ./grade --sanitize asks it whether the GPU can run the demo (grader/gpu-probe.c).
build/gpu-probe.o: grader/gpu-probe.c build/flags
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

build/gpu-probe: build/gpu-probe.o build/common/device.o build/common/cuda_check.o
	$(NVCC) $^ -o $@

build/bench/%.o: bench/%.c build/flags build/generated/bench/references.h build/generated/bench/contenders.h
	@mkdir -p $(@D)
	$(CC) -Ibuild/generated/bench $(CPPFLAGS) -Ibench $(CFLAGS) -c $< -o $@

build/bench/bench: build/bench/bench.o build/bench/chart.o build/bench/options.o \
                   $(BENCH_REFERENCES:%=build/reference/%.o) $(COMMON_OBJECTS)
	$(NVCC) $(SHARED_MEMORY_LIMIT_LDFLAGS) $^ -o $@ -lm

bench: build/bench/bench
	build/bench/bench --out build/bench

# make lessons: the controlled experiments the handouts' explanations rest on (GPU).
# The student kit has its object only (grader/kit.py): its kernels are the labs' answers.
ifneq ($(wildcard bench/lessons.cu),)
build/bench/lessons.o: bench/lessons.cu build/flags
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -Ibench -c $< -o $@
else
build/bench/lessons.o: prebuilt/bench/lessons.o
	@mkdir -p $(@D)
	cp $< $@
endif

build/bench/lessons: build/bench/lessons.o build/bench/options.o $(COMMON_OBJECTS)
	$(NVCC) $(SHARED_MEMORY_LIMIT_LDFLAGS) $^ -o $@ -lm

lessons: build/bench/lessons
	build/bench/lessons --out build/bench/lessons.md

# make bench-inputs: how long the grader's generator of timed inputs takes, every source (GPU).
build/bench/timed_inputs_speed: bench/timed_inputs_speed.cu $(COMMON_OBJECTS) build/flags
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) $< $(COMMON_OBJECTS) -o $@ -lm

bench-inputs: build/bench/timed_inputs_speed
	build/bench/timed_inputs_speed

# make results: every recorded log and table the docs quote, regenerated on this GPU.
results:
	@if [ ! -d solutions ]; then \
	  echo "make results regenerates the logs the kit's docs quote, in the kit's repository, not in" \
	       "the student tarball"; exit 2; fi
	python3 bench/record_results.py

bench-grade:
	@if [ ! -d solutions ]; then \
	  echo "make bench-grade times ./grade on the reference solutions, which come with the kit's" \
	       "repository, not with the student tarball"; exit 2; fi
	@$(MAKE) --no-print-directory -s $(foreach lab,$(LABS),solution-$(call short,$(lab)))
	@python3 bench/grade_times.py --out build/bench

build/unit/unit-tests: $(UNIT_OBJECTS) $(GRADER_COMMON_OBJECTS) $(HARNESS_OBJECTS) build/bench/chart.o \
                      build/crossing/system_calls.o $(filter-out build/results/records.o,$(RESULTS_OBJECTS))
	$(NVCC) $(GRADER_LDFLAGS) $^ -o $@ -lcriterion

# One lab built from one source file into build/<role>/<lab>: the student's (labs/), the
# solution (solutions/) or a variant of the solution (grader/variants/). $(1): lab, $(2): role, $(3): the .cu file.
# The submission check runs it through three stages (grader/check_submission.py): its includes,
# its compile (under the check's limits, the check as gcc's -wrapper), its object. The compile
# writes no dependency file (no -MMD): nvcc writes there every name the passes read, #line names
# included, as they are, and make would read them as make ($(shell ...) would run). What a
# submission may include is listed instead: its lab's headers and common/'s.
SUBMISSION_FLAGS = $(filter-out -MMD -MP,$(if $(findstring variant/,$(1)),$(VARIANT_NVCCFLAGS),$(NVCCFLAGS)))
define LAB_RULES
build/$(2)/$(1)/$(call short,$(1)).o: $(3) build/flags grader/check_submission.py grader/allowed-symbols.txt \
                                      grader/allowed-sections.txt $(wildcard labs/$(1)/*.h common/*.h)
	@mkdir -p $$(@D)
	@python3 grader/check_submission.py includes $$< -- $$(NVCC) $$(call SUBMISSION_FLAGS,$(2)) -Ilabs/$(1) $$<
	python3 grader/check_submission.py compile $$< -- $$(NVCC) $$(call SUBMISSION_FLAGS,$(2)) -Ilabs/$(1) -c $$< -o $$@
	@python3 grader/check_submission.py object $$@ $$< || { status=$$$$?; rm -f $$@; exit $$$$status; }
$(call LAB_LINK_RULES,$(1),$(2))
endef

# The student tarball's compiled reference or variant of a lab, $(3), in place of a lab's
# object: no source, so the submission check checks the object only. $(1): lab, $(2): role.
define PREBUILT_LAB_RULES
build/$(2)/$(1)/$(call short,$(1)).o: $(3) grader/check_submission.py grader/allowed-symbols.txt \
                                      grader/allowed-sections.txt
	@mkdir -p $$(@D)
	cp $$< $$@
	@python3 grader/check_submission.py object $$@ $$< || { status=$$$$?; rm -f $$@; exit $$$$status; }
$(call LAB_LINK_RULES,$(1),$(2))
endef

# The demo and the grader of a lab's object build/<role>/<lab>/labN.o. $(1): lab, $(2): role.
define LAB_LINK_RULES
build/$(2)/$(1)/demo.o: labs/$(1)/demo.c build/flags
	@mkdir -p $$(@D)
	$$(CC) $$(CPPFLAGS) -Ilabs/$(1) $$(CFLAGS) -c $$< -o $$@

build/$(2)/$(1)/grade_$(call short,$(1)).o: grader/$(1)/grade_$(call short,$(1)).c build/flags \
                                          build/generated/$(1)/references.h | build/criterion.ok
	@mkdir -p $$(@D)
	$$(CC) -Ibuild/generated/$(1) $$(CPPFLAGS) -Ilabs/$(1) $$(CFLAGS) -c $$< -o $$@

build/$(2)/$(1)/demo: build/$(2)/$(1)/demo.o build/$(2)/$(1)/$(call short,$(1)).o $(COMMON_OBJECTS)
	$$(NVCC) $$^ -o $$@

# The code under test is not in the grader: it runs in the worker, the references in theirs.
# The kit's objects come before the code under test's: where both define a weak symbol (a
# template's instance, a vtable of a header's class), the linker keeps the first, the kit's.
build/$(2)/$(1)/worker: $(WORKER_OBJECTS) build/crossing/$(1)/student-thunks.o $(COMMON_OBJECTS) \
                        build/$(2)/$(1)/$(call short,$(1)).o
	$$(NVCC) $$(WORKER_LDFLAGS) $$^ -o $$@

build/$(2)/$(1)/grader: $(call GRADER_OBJECTS,$(1),$(2)) build/$(2)/$(1)/worker build/reference/$(1)/worker
	$$(NVCC) $$(GRADER_LDFLAGS) $$(filter %.o,$$^) -o $$@ -lcriterion
endef

# What a lab's grader links: its tests, the proxies of the lab's functions and of the references
# it compares with, the harness. $(1): lab, $(2): the role whose grade_labN.o it uses.
GRADER_OBJECTS = build/$(2)/$(1)/grade_$(call short,$(1)).o build/crossing/$(1)/student-proxies.o \
                 $($(1).references:%=build/crossing/%/reference-proxies.o) $(HARNESS_OBJECTS) \
                 $(GRADER_COMMON_OBJECTS)

$(foreach lab,$(LABS),$(eval $(call LAB_RULES,$(lab),student,labs/$(lab)/$(call short,$(lab)).cu)))
ifneq ($(HAVE_SOLUTIONS),)
$(foreach lab,$(LABS),$(eval $(call LAB_RULES,$(lab),solution,solutions/$(lab)/$(call short,$(lab)).cu)))
else
# The student tarball: ./grade LAB --solution grades the compiled reference, its reference_labN_
# functions named labN_ again (the stand-in of LISTING_RULES), and --variant NAME the compiled
# variant prebuilt/variant/<lab>/NAME.o, one of those make kit ships.
$(foreach lab,$(LABS),$(eval $(call PREBUILT_LAB_RULES,$(lab),solution,build/listing/$(lab)/stand-in.o)))
$(foreach object,$(wildcard prebuilt/variant/*/*.o),$(eval $(call PREBUILT_LAB_RULES,$(notdir $(patsubst %/,%,$(dir \
  $(object)))),variant/$(basename $(notdir $(object))),$(object))))
endif
# A lab's primer: an example program to read and run, not a submission (the submission check
# and the grader are for labN.cu alone). $(1): lab.
define PRIMER_RULES
build/student/$(1)/primer.o: labs/$(1)/primer.cu build/flags
	@mkdir -p $$(@D)
	$$(NVCC) $$(NVCCFLAGS) -c $$< -o $$@

build/student/$(1)/primer: build/student/$(1)/primer.o build/common/cuda_check.o
	$$(NVCC) $$^ -o $$@
endef
$(foreach lab,$(PRIMER_LABS),$(eval $(call PRIMER_RULES,$(lab))))
# ./grade LAB --file PATH: a copy of that file under build/file/<hash>/source/, built on its own
# into build/file/<hash>/LAB (grade checks the names it passes: no spaces, quotes or '$').
ifneq ($(SUBMISSION_FILE),)
$(eval $(call LAB_RULES,$(SUBMISSION_LAB),$(SUBMISSION_ROLE),$(SUBMISSION_FILE)))
endif

# The variants the graders are tested on: grader/variants/<lab>/<name>.sed, a sed script that
# plants one mistake in the lab's reference solution (the grader must reject it) or rewrites it
# in an unusual but correct way (the grader must accept it). $(1): lab, $(2): name.
define VARIANT_RULES
build/variant/$(2)/$(1)/$(call short,$(1)).cu: grader/variants/$(1)/$(2).sed solutions/$(1)/$(call short,$(1)).cu
	@mkdir -p $$(@D)
	sed -f $$< solutions/$(1)/$(call short,$(1)).cu > $$@
	@if cmp -s $$@ solutions/$(1)/$(call short,$(1)).cu; then \
	  echo "$$<: the script no longer changes the solution; update it" >&2; rm -f $$@; exit 1; fi
$(call LAB_RULES,$(1),variant/$(2),build/variant/$(2)/$(1)/$(call short,$(1)).cu)
endef
$(foreach variant,$(VARIANTS),$(eval $(call VARIANT_RULES,$(patsubst %/,%,$(dir $(variant))),$(notdir $(variant)))))

# The student distribution (make dist) has no solutions: its references come compiled, in
# prebuilt/reference/, and the solution and variant targets do not exist there.
# A reference is the solution's object with its lab<N>_ functions renamed reference_lab<N>_
# and everything else (kernels, helpers) made local, so it links beside a student's lab.
ifneq ($(HAVE_SOLUTIONS),)
define REFERENCE_RULE
build/reference/$(1).o: build/solution/$(1)/$(call short,$(1)).o
	@mkdir -p $$(@D)
	$$(OBJCOPY) $$$$(nm --defined-only --extern-only $$< | awk '$$$$3 ~ /^lab[0-9]+_/ \
	  { printf "--redefine-sym %s=reference_%s --keep-global-symbol=reference_%s ", $$$$3, $$$$3, $$$$3 }') \
	  --keep-global-symbol=DW.ref.__gxx_personality_v0 \
	  $$< $$@
endef
else
define REFERENCE_RULE
build/reference/$(1).o: prebuilt/reference/$(1).o
	@mkdir -p $$(@D)
	cp $$< $$@
endef
endif
# (DW.ref.__gxx_personality_v0 stays global: it is a COMDAT that CUB's object links against, and
# a local copy of it would shadow the one the linker keeps.)
$(foreach lab,$(LABS),$(eval $(call REFERENCE_RULE,$(lab))))

# The declarations of the references, made from each lab's contract header: for each lab<N>_
# function it declares, reference_lab<N>_ with the same type (__typeof__), so they cannot drift.
build/generated/reference/%.h: labs/%/*.h
	@mkdir -p $(@D)
	{ echo '/* Made by the Makefile from $<: the references of the contract, of its types. */'; \
	  echo '#include "../../../$<"'; \
	  grep -o -E '\blab[0-9]+_[A-Za-z0-9_]+ *\(' $< | tr -d ' (' | sort -u | \
	    sed 's/.*/__typeof__(&) reference_&;/'; } > $@

# references.h for a grader (or the bench): the declarations of the references it links, as the
# lab manifest lists them.
define REFERENCES_HEADER
build/generated/$(1)/references.h: $(2:%=build/generated/reference/%.h) Makefile grader/labs.mk
	@mkdir -p $$(@D)
	{ echo '/* Made by the Makefile: the references this program links. */'; \
	  $(foreach reference,$(2),echo '#include "../reference/$(reference).h"';) } > $$@
endef
$(foreach lab,$(LABS),$(eval $(call REFERENCES_HEADER,$(lab),$($(lab).references))))
$(eval $(call REFERENCES_HEADER,bench,$(BENCH_REFERENCES)))
# What make bench times of each lab (bench/bench.c's tables), from the manifest's bench lines.
build/generated/bench/contenders.h: grader/labs.mk grader/labs.py
	@mkdir -p $(@D)
	python3 grader/labs.py --bench-header > $@.new && mv $@.new $@

# The list of a lab's tests, as records (grader/results/records.h), for a grading whose code
# does not build or is missing: its tests are then listed as not run, and the maximum stays the
# lab's. The list comes from the lab's grader, which holds no code under test, run with a filter
# that no test matches. The stand-in is the tarball's solution: the compiled reference with its
# functions named as the lab's again.
define LISTING_RULES
build/listing/$(1)/stand-in.o: build/reference/$(1).o
	@mkdir -p $$(@D)
	$$(OBJCOPY) $$$$(nm --defined-only --extern-only $$< | awk '$$$$3 ~ /^reference_lab[0-9]+_/ \
	  { printf "--redefine-sym %s=%s ", $$$$3, substr($$$$3, 11) }') $$< $$@

build/listing/$(1)/grader: $(call GRADER_OBJECTS,$(1),student)
	@mkdir -p $$(@D)
	$$(NVCC) $$(GRADER_LDFLAGS) $$^ -o $$@ -lcriterion

build/listing/$(1)/tests.records: build/listing/$(1)/grader
	@rm -f $$@.new
	@GRADE_RECORDS=$$@.new $$< --filter='listing-only/no-test' >/dev/null 2>&1; \
	  grep -q '^listed' $$@.new 2>/dev/null || { echo "$$@: the grader listed no test" >&2; exit 1; }
	@mv $$@.new $$@
endef
$(foreach lab,$(LABS),$(eval $(call LISTING_RULES,$(lab))))

$(foreach lab,$(LABS),$(eval $(call short,$(lab)): build/student/$(lab)/grader build/student/$(lab)/demo \
  $(if $(filter $(lab),$(PRIMER_LABS)),build/student/$(lab)/primer) \
  build/listing/$(lab)/tests.records build/results/results))
$(foreach lab,$(LABS),$(eval solution-$(call short,$(lab)): build/solution/$(lab)/grader build/solution/$(lab)/demo \
  build/listing/$(lab)/tests.records build/results/results))

# The compilers write the .d files: make never remakes them (its built-in rules would try to,
# through a pattern rule of ours). make reads those of the kit's own code only, by where they
# are: never a submission's (build/<role>/<lab>/labN.d, which no compile of ours writes, but an
# older kit or anything else may have left there).
%.d: ;
-include $(wildcard build/*.d build/common/*.d build/harness/*.d build/crossing/*.d build/crossing/*/*.d \
                   build/results/*.d build/unit/*.d build/bench/*.d \
                   $(foreach folder,build/*/* build/*/*/*,$(folder)/demo.d $(folder)/grade_lab*.d $(folder)/primer.d))
