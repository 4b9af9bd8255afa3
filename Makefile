# The CUDA atomics and histogram lab kit. Start with README.md.
#
#   make lab5            build lab 5 from your code: build/student/lab5-privatized/{grader,demo}
#   make solution-lab5   the same from the reference solution
#   make all             every lab, yours and the solutions
#   make test            build everything and run every test (see README.md)
#   make clean           remove build/
#
# CUDA_ARCH picks the GPU architectures (compute capabilities without the dot): by default
# the GPU in this machine, or 75 80 86 89 90 when there is none. For example: make CUDA_ARCH=90

LABS := lab1-race lab2-count-atomic lab3-count-shared lab4-text-histogram \
        lab5-privatized lab6-coarsened lab7-aggregated
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
            -DKIT_DATA_DIR='"$(CURDIR)/grader/data"'
NVCCFLAGS := -O3 -g -std=c++17 $(GENCODE) -Xcompiler -Wall,-Wextra -MMD -MP -Icommon
LDFLAGS := $(CRITERION_LDFLAGS)

COMMON := cuda_check timing inputs reference compare report device counting histogram_demo
COMMON_OBJECTS := $(COMMON:%=build/common/%.o)
HARNESS_OBJECTS := $(patsubst grader/harness/%.c,build/harness/%.o,$(wildcard grader/harness/*.c))
# grader/wrong/<lab>/<name>.sed -> <lab>/<name>, graded from build/wrong/<name>/<lab>/grader
WRONG := $(patsubst grader/wrong/%.sed,%,$(wildcard grader/wrong/*/*.sed))
WRONG_GRADERS := $(foreach wrong,$(WRONG),build/wrong/$(notdir $(wrong))/$(patsubst %/,%,$(dir $(wrong)))/grader)
UNIT_OBJECTS := $(patsubst grader/unit/%.c,build/unit/%.o,$(wildcard grader/unit/*.c))

.PHONY: help all test clean criterion FORCE $(foreach lab,$(LABS),$(call short,$(lab)) solution-$(call short,$(lab)))
.DEFAULT_GOAL := help

help:
	@sed -n '2,12p' Makefile | sed 's/^# \{0,1\}//'

all: $(foreach lab,$(LABS),$(call short,$(lab)) solution-$(call short,$(lab))) build/unit/unit-tests \
     $(WRONG_GRADERS)

test: all
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

build/harness/%.o: grader/harness/%.c build/flags | build/criterion.ok
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

build/unit/%.o: grader/unit/%.c build/flags | build/criterion.ok
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Ilabs/lab1-race $(CFLAGS) -c $< -o $@

build/unit/unit-tests: $(UNIT_OBJECTS) $(COMMON_OBJECTS) $(HARNESS_OBJECTS)
	$(NVCC) $(LDFLAGS) $^ -o $@ -lcriterion

# One lab built from one source file into build/<role>/<lab>: the student's (labs/), the
# solution (solutions/) or a known-wrong one. $(1): lab, $(2): role, $(3): the .cu file.
define LAB_RULES
build/$(2)/$(1)/$(call short,$(1)).o: $(3) build/flags
	@mkdir -p $$(@D)
	$$(NVCC) $$(NVCCFLAGS) -Ilabs/$(1) -c $$< -o $$@

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

# The known-wrong solutions the graders must reject: grader/wrong/<lab>/<name>.sed, a sed script
# that plants one mistake in the lab's reference solution. $(1): lab, $(2): name.
define WRONG_RULES
build/wrong/$(2)/$(1)/$(call short,$(1)).cu: grader/wrong/$(1)/$(2).sed solutions/$(1)/$(call short,$(1)).cu
	@mkdir -p $$(@D)
	sed -f $$< solutions/$(1)/$(call short,$(1)).cu > $$@
	@if cmp -s $$@ solutions/$(1)/$(call short,$(1)).cu; then \
	  echo "$$<: the mutation no longer changes the solution; update it" >&2; rm -f $$@; exit 1; fi
$(call LAB_RULES,$(1),wrong/$(2),build/wrong/$(2)/$(1)/$(call short,$(1)).cu)
endef
$(foreach wrong,$(WRONG),$(eval $(call WRONG_RULES,$(patsubst %/,%,$(dir $(wrong))),$(notdir $(wrong)))))

# A reference is the solution's object with its lab<N>_ functions renamed reference_lab<N>_
# and everything else (kernels, helpers) made local, so it links beside a student's lab.
define REFERENCE_RULE
build/reference/$(1).o: build/solution/$(1)/$(call short,$(1)).o
	@mkdir -p $$(@D)
	$$(OBJCOPY) $$$$(nm --defined-only --extern-only $$< | awk '$$$$3 ~ /^lab[0-9]+_/ \
	  { printf "--redefine-sym %s=reference_%s --keep-global-symbol=reference_%s ", $$$$3, $$$$3, $$$$3 }') \
	  $$< $$@
endef
$(foreach lab,$(LABS),$(eval $(call REFERENCE_RULE,$(lab))))

$(foreach lab,$(LABS),$(eval $(call short,$(lab)): build/student/$(lab)/grader build/student/$(lab)/demo))
$(foreach lab,$(LABS),$(eval solution-$(call short,$(lab)): build/solution/$(lab)/grader build/solution/$(lab)/demo))

-include $(shell find build -name '*.d' 2>/dev/null)
