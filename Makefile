# nbrlab - build every variant in float and double, run the default comparison, test.
#
#   make            build all programs into build/<precision>/
#   make run        build, then run the default comparison on this machine (runs/default.sh)
#   make test       build, then run the test suite (tests/run.sh); GPU tests need a GPU
#   make info       toolchain and machine versions, for benchmark provenance
#
# ---- configuration: override on the command line, e.g. make OPT='-O2 -g' -----------------
CC         ?= gcc
# the CPU benchmarks are for this machine, so tune for it
OPT        ?= -O3 -march=native
NVCC       ?= $(shell command -v nvcc 2>/dev/null || ls /usr/local/cuda/bin/nvcc 2>/dev/null)
# sm_90 machine code for the H200 plus compute_90 PTX that newer GPUs can JIT
CUDA_ARCH  ?= -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90
NVOPT      ?= -O3
PRECISIONS ?= double float
BUILD      ?= build
# -------------------------------------------------------------------------------------------

WARN     := -Wall -Wextra -Wno-unused-parameter
# provenance: the git revision, or .git-rev where the tree travelled without .git (the GPU
# machine: write it with `git describe --always --dirty > .git-rev` and carry it)
GIT_REV  := $(shell git describe --always --dirty 2>/dev/null || cat .git-rev 2>/dev/null || echo unknown)
CC_VER   := $(shell $(CC) --version 2>/dev/null | head -1)
NV_VER   := $(if $(NVCC),$(shell $(NVCC) --version 2>/dev/null | tail -2 | head -1),)
DEFS     := -DNBR_GIT_REV='"$(GIT_REV)"'
CFLAGS   := -std=c11 -D_POSIX_C_SOURCE=200809L $(OPT) $(WARN) $(DEFS)
NVFLAGS  := -std=c++17 $(NVOPT) $(CUDA_ARCH) $(DEFS) -Xcompiler -Wall -lineinfo
LDLIBS   := -lm

COMMON_SRC   := $(wildcard common/*.c)
KERNEL_SRC   := $(wildcard kernels/*.cu)
CPU_VARIANTS := $(basename $(notdir $(wildcard variants/*.c)))
GPU_VARIANTS := $(basename $(notdir $(wildcard variants/*.cu)))
HEADERS      := $(wildcard common/*.h kernels/*.h kernels/*.cuh)

# per precision: -DNBR_FLOAT for float
prec_flag = $(if $(filter float,$(1)),-DNBR_FLOAT,)

CPU_BINS := $(foreach p,$(PRECISIONS),$(addprefix $(BUILD)/$(p)/,$(CPU_VARIANTS)))
GPU_BINS := $(if $(NVCC),$(foreach p,$(PRECISIONS),$(addprefix $(BUILD)/$(p)/,$(GPU_VARIANTS))),)
TEST_BINS := $(BUILD)/double/test-core $(BUILD)/float/test-core

.PHONY: all cpu gpu run test info clean plots report
all: cpu gpu $(TEST_BINS)
cpu: $(CPU_BINS)
gpu: $(GPU_BINS)
ifeq ($(NVCC),)
	@echo "nvcc not found: CUDA variants ($(GPU_VARIANTS)) not built"
endif

define PRECISION_RULES
$(BUILD)/$(1)/common/%.o: common/%.c $(HEADERS) | $(BUILD)/$(1)/common
	$(CC) $(CFLAGS) $(call prec_flag,$(1)) -DNBR_COMPILER='"$(CC_VER)"' -c $$< -o $$@
$(BUILD)/$(1)/variants/%.o: variants/%.c $(HEADERS) | $(BUILD)/$(1)/variants
	$(CC) $(CFLAGS) $(call prec_flag,$(1)) -c $$< -o $$@
$(BUILD)/$(1)/%: $(BUILD)/$(1)/variants/%.o $(patsubst common/%.c,$(BUILD)/$(1)/common/%.o,$(COMMON_SRC))
	$(CC) $(CFLAGS) $$^ -o $$@ $(LDLIBS)
$(BUILD)/$(1)/test-core: tests/test_core.c $(patsubst common/%.c,$(BUILD)/$(1)/common/%.o,$(filter-out common/md_loop.c,$(COMMON_SRC))) $(BUILD)/$(1)/common/md_loop.o
	$(CC) $(CFLAGS) $(call prec_flag,$(1)) $$^ -o $$@ $(LDLIBS)
# CUDA: kernels/ objects shared by every GPU variant; common/ objects linked in as C
$(BUILD)/$(1)/kernels/%.o: kernels/%.cu $(HEADERS) | $(BUILD)/$(1)/kernels
	$(NVCC) $(NVFLAGS) $(call prec_flag,$(1)) -c $$< -o $$@
$(BUILD)/$(1)/variants/%.cu.o: variants/%.cu $(HEADERS) | $(BUILD)/$(1)/variants
	$(NVCC) $(NVFLAGS) $(call prec_flag,$(1)) -DNBR_COMPILER='"nvcc $(NV_VER)"' -c $$< -o $$@
$(addprefix $(BUILD)/$(1)/,$(GPU_VARIANTS)): $(BUILD)/$(1)/%: $(BUILD)/$(1)/variants/%.cu.o $(patsubst kernels/%.cu,$(BUILD)/$(1)/kernels/%.o,$(KERNEL_SRC)) $(patsubst common/%.c,$(BUILD)/$(1)/common/%.o,$(COMMON_SRC))
	$(NVCC) $(NVFLAGS) $$^ -o $$@ $(LDLIBS)
$(BUILD)/$(1)/common $(BUILD)/$(1)/variants $(BUILD)/$(1)/kernels:
	mkdir -p $$@
endef
$(foreach p,$(PRECISIONS),$(eval $(call PRECISION_RULES,$(p))))

# Provenance: report.c bakes the revision into every CSV row, so it is recompiled whenever
# the revision changes (the stamp file is rewritten only then).
REV_STAMP := $(BUILD)/.git-rev-stamp
$(shell mkdir -p $(BUILD) && (echo '$(GIT_REV)' | cmp -s - $(REV_STAMP) || echo '$(GIT_REV)' > $(REV_STAMP)))
$(foreach p,$(PRECISIONS),$(BUILD)/$(p)/common/report.o): $(REV_STAMP)
.SECONDARY:

run: all
	runs/default.sh

test: all
	tests/run.sh

plots:
	plots/all.sh

report:
	runs/report.sh

info:
	@echo "nbrlab $(GIT_REV)"
	@echo "cc:     $(CC_VER)"
	@echo "flags:  $(OPT)"
	@echo "nvcc:   $(if $(NVCC),$(NV_VER) ($(NVCC)),not found)"
	@echo "arch:   $(CUDA_ARCH)"
	@echo "cpu:    $$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
	@echo "gpu:    $$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo none)"
	@echo "kernel: $$(uname -sr)"

clean:
	rm -rf $(BUILD)
