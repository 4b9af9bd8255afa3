# The CUDA atomics and histogram lab kit. Start with README.md.
#
#   make lab5            build lab 5 from your code: build/student/lab5-privatized/{grader,demo}
#   make solution-lab5   the same from the reference solution
#   make all             every lab, yours and the solutions
#   make test            build everything and run every test (see README.md)
#   make bench           time every lab's reference, CUB and a copy on 1 GiB inputs (GPU)
#   make dist            the students' tarball, without the solutions (build/dist/)
#   make clean           remove build/
#
# CUDA_ARCH picks the GPU architectures (compute capabilities without the dot): by default
# the GPU in this machine, or 75 80 86 89 90 when there is none. For example: make CUDA_ARCH=90

LABS := lab1-race lab2-count-atomic lab3-count-shared lab4-text-histogram \
        lab5-privatized lab6-coarsened lab7-aggregated lab8-challenge
# lab5-privatized -> lab5
short = $(firstword $(subst -, ,$(1)))

# The references each lab's grader times against: its own, and the previous lab's.
REFERENCES_lab1-race           := lab1-race
REFERENCES_lab2-count-atomic   := lab1-race lab2-count-atomic
REFERENCES_lab3-count-shared   := lab2-count-atomic lab3-count-shared
REFERENCES_lab4-text-histogram := lab4-text-histogram
REFERENCES_lab5-privatized     := lab4-text-histogram lab5-privatized
REFERENCES_lab6-coarsened      := lab5-privatized lab6-coarsened
REFERENCES_lab7-aggregated     := lab6-coarsened lab7-aggregated
REFERENCES_lab8-challenge      := lab6-coarsened lab8-challenge
# make bench times every lab's reference.
BENCH_REFERENCES := lab4-text-histogram lab5-privatized lab6-coarsened lab7-aggregated lab8-challenge

CUDA_HOME ?= /usr/local/cuda
NVCC ?= $(CUDA_HOME)/bin/nvcc
CC := gcc
OBJCOPY ?= objcopy

DETECTED_ARCH := $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null \
                   | grep -E '^[0-9]+\.[0-9]+$$' | head -n 1 | tr -d .)
CUDA_ARCH ?= $(DETECTED_ARCH)
ifeq ($(strip $(CUDA_ARCH)),)
override CUDA_ARCH := 75 80 86 89 90
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
CPPFLAGS := -Icommon -Igrader/harness -I$(CUDA_HOME)/include $(CRITERION_CPPFLAGS) \
            -DKIT_DATA_DIR='"$(CURDIR)/grader/data"' -DKIT_CUDA_HOME='"$(CUDA_HOME)"'
NVCC_COMMON_FLAGS := -O3 -g -std=c++17 -Xcompiler -Wall,-Wextra -MMD -MP -Icommon
NVCCFLAGS := $(NVCC_COMMON_FLAGS) $(GENCODE)
# The variants of grader/variants/ are graded only on the GPU at hand: machine code for the
# newest architecture is enough for them (and keeps a GPU-less build of all fifty short).
VARIANT_NVCCFLAGS := $(NVCC_COMMON_FLAGS) \
                     -gencode arch=compute_$(lastword $(CUDA_ARCH)),code=sm_$(lastword $(CUDA_ARCH))
LDFLAGS := $(CRITERION_LDFLAGS)

COMMON := cuda_check timing inputs reference compare report device counting histogram_demo \
          bandwidth cub_histogram
COMMON_OBJECTS := $(COMMON:%=build/common/%.o)
HARNESS_OBJECTS := $(patsubst grader/harness/%.c,build/harness/%.o,$(wildcard grader/harness/*.c))
# grader/variants/<lab>/<name>.sed -> <lab>/<name>, graded from build/variant/<name>/<lab>/grader
VARIANTS := $(patsubst grader/variants/%.sed,%,$(wildcard grader/variants/*/*.sed))
VARIANT_GRADERS := $(foreach variant,$(VARIANTS),build/variant/$(notdir $(variant))/$(patsubst %/,%,$(dir $(variant)))/grader)
UNIT_OBJECTS := $(patsubst grader/unit/%.c,build/unit/%.o,$(wildcard grader/unit/*.c))

.PHONY: help all test bench dist references clean criterion FORCE $(foreach lab,$(LABS),$(call short,$(lab)) solution-$(call short,$(lab)))
.DEFAULT_GOAL := help

help:
	@sed -n '2,14p' Makefile | sed 's/^# \{0,1\}//'

all: $(foreach lab,$(LABS),$(call short,$(lab))) build/unit/unit-tests build/bench/bench \
     build/scoring/score $(if $(HAVE_SOLUTIONS),$(foreach lab,$(LABS),solution-$(call short,$(lab))) \
     $(VARIANT_GRADERS))

# Every lab's reference, compiled (make dist ships them).
references: $(LABS:%=build/reference/%.o)

# The students' tarball, without the solutions: build/dist/cuda-histogram-labs.tar.gz.
dist:
	bash grader/make-dist.sh

# The build of everything runs in parallel, one job a core.
test:
	@if [ ! -f grader/run-tests.sh ]; then \
	  echo "make test checks the kit itself and comes with its repository, not with the student" \
	       "tarball: grade a lab with ./grade labN"; exit 2; fi
	@$(MAKE) --no-print-directory -j$$(nproc) all
	@bash grader/run-tests.sh

clean:
	rm -rf build

# Rebuild everything when the compiler flags change (another CUDA_ARCH, say).
build/flags: FORCE
	@mkdir -p build
	@echo '$(NVCC) $(NVCCFLAGS) $(CC) $(CFLAGS) $(CPPFLAGS)' | cmp -s - $@ \
	  || echo '$(NVCC) $(NVCCFLAGS) $(CC) $(CFLAGS) $(CPPFLAGS)' > $@

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

build/unit/%.o: grader/unit/%.c build/flags | build/criterion.ok
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Ilabs/lab1-race -Ibench -Igrader/scoring $(CFLAGS) -c $< -o $@

# score: a grade's results turned into points (pure C, no CUDA: runs anywhere).
SCORING_OBJECTS := build/scoring/points.o build/scoring/results.o
build/scoring/%.o: grader/scoring/%.c build/flags
	@mkdir -p $(@D)
	$(CC) -Igrader/scoring $(CFLAGS) -c $< -o $@

build/scoring/score: build/scoring/score.o $(SCORING_OBJECTS)
	$(CC) $^ -o $@ -lm

build/bench/%.o: bench/%.c build/flags
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Ibench $(CFLAGS) -c $< -o $@

build/bench/bench: build/bench/bench.o build/bench/chart.o \
                   $(BENCH_REFERENCES:%=build/reference/%.o) $(COMMON_OBJECTS)
	$(NVCC) $^ -o $@ -lm

bench: build/bench/bench
	build/bench/bench --out build/bench

build/unit/unit-tests: $(UNIT_OBJECTS) $(COMMON_OBJECTS) $(HARNESS_OBJECTS) build/bench/chart.o \
                      $(SCORING_OBJECTS)
	$(NVCC) $(LDFLAGS) $^ -o $@ -lcriterion

# One lab built from one source file into build/<role>/<lab>: the student's (labs/), the
# solution (solutions/) or a variant of the solution (grader/variants/). $(1): lab, $(2): role, $(3): the .cu file.
define LAB_RULES
build/$(2)/$(1)/$(call short,$(1)).o: $(3) build/flags
	@mkdir -p $$(@D)
	$$(NVCC) $(if $(findstring variant/,$(2)),$$(VARIANT_NVCCFLAGS),$$(NVCCFLAGS)) -Ilabs/$(1) -c $$< -o $$@

build/$(2)/$(1)/demo.o: labs/$(1)/demo.c build/flags
	@mkdir -p $$(@D)
	$$(CC) $$(CPPFLAGS) -Ilabs/$(1) $$(CFLAGS) -c $$< -o $$@

build/$(2)/$(1)/grade_$(call short,$(1)).o: grader/$(1)/grade_$(call short,$(1)).c build/flags | build/criterion.ok
	@mkdir -p $$(@D)
	$$(CC) $$(CPPFLAGS) -Ilabs/$(1) $$(CFLAGS) -c $$< -o $$@

build/$(2)/$(1)/demo: build/$(2)/$(1)/demo.o build/$(2)/$(1)/$(call short,$(1)).o $(COMMON_OBJECTS)
	$$(NVCC) $$^ -o $$@

build/$(2)/$(1)/grader: build/$(2)/$(1)/grade_$(call short,$(1)).o build/$(2)/$(1)/$(call short,$(1)).o \
                        $(REFERENCES_$(1):%=build/reference/%.o) $(HARNESS_OBJECTS) $(COMMON_OBJECTS)
	$$(NVCC) $$(LDFLAGS) $$^ -o $$@ -lcriterion
endef

$(foreach lab,$(LABS),$(eval $(call LAB_RULES,$(lab),student,labs/$(lab)/$(call short,$(lab)).cu)))
$(foreach lab,$(LABS),$(eval $(call LAB_RULES,$(lab),solution,solutions/$(lab)/$(call short,$(lab)).cu)))
# ./grade LAB --source FILE --id NAME: a student's file, built on its own into build/submission/NAME.
ifneq ($(SUBMISSION_FILE),)
$(eval $(call LAB_RULES,$(SUBMISSION_LAB),submission/$(SUBMISSION_ID),$(SUBMISSION_FILE)))
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
HAVE_SOLUTIONS := $(wildcard solutions/lab1-race/lab1.cu)
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

$(foreach lab,$(LABS),$(eval $(call short,$(lab)): build/student/$(lab)/grader build/student/$(lab)/demo))
$(foreach lab,$(LABS),$(eval solution-$(call short,$(lab)): build/solution/$(lab)/grader build/solution/$(lab)/demo))

-include $(shell find build -name '*.d' 2>/dev/null)
