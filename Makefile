# nbrlab - build every variant in float and double, run the default comparison, test.
#
#   make            build all programs into build/<precision>/
#   make run        build what can run here (the CUDA programs only where a GPU is found), then
#                   run the default comparison on this machine (runs/default.sh)
#   make test       build everything, then run the test suite (tests/run.sh); GPU tests need a GPU
#   make mutants    plant known faults one at a time in a scratch copy: the suite must catch each
#   make tour       the tour of the trade-offs (runs/tour.py, docs/tour.md): every CPU stop, and
#                   every GPU stop where a GPU and the GPU programs are there (else SKIP)
#   make info       toolchain and machine versions, for benchmark provenance, and the optional
#                   parts built (on, off or absent; see WITH_<PART> below)
#   make plots      figures from the committed CSVs (plots/all.sh); make report: REPORT.md.
#                   Both run python in build/venv, made from plots/requirements.txt the first time
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
# The optional parts, each built where it is found; WITH_<PART>=0 switches one off even where
# it is found (a bare machine's build: make WITH_CUDA=0 WITH_OPENCL=0 WITH_MPI=0 WITH_NCCL=0
# WITH_NVSHMEM=0). Their tests SKIP, naming the reason; $(BUILD)/features lists what was built.
#   WITH_CUDA     nvcc: the gpu-* programs and coulomb-cuda
#   WITH_OPENCL   OpenCL headers and ICD loader: coulomb --impl opencl
#   WITH_MPI      mpi.h (and nvcc): gpu-dd
#   WITH_NCCL     nccl.h: gpu-dd --comm nccl
#   WITH_NVSHMEM  NVSHMEM_HOME (or NVSHMEM_INC and NVSHMEM_LIB): gpu-dd --comm nvshmem
WITH_CUDA    ?= 1
WITH_OPENCL  ?= 1
WITH_MPI     ?= 1
WITH_NCCL    ?= 1
WITH_NVSHMEM ?= 1
# -------------------------------------------------------------------------------------------

# -Werror=switch: an enum switch missing a value fails the build (the potentials' dispatch,
# common/potential.h, has no default for that reason)
WARN     := -Wall -Wextra -Wno-unused-parameter -Werror=switch
# provenance: the git revision of THIS tree's code (a tree inside another repository must not
# take that repository's revision; rows under results/ and figures in plots/out/ are data and
# leave it clean: runs/code_rev.sh), else .git-rev (written by runs/stamp_rev.sh before a tree
# travels without .git), else unknown
GIT_REV  := $(shell [ "$$(git rev-parse --show-toplevel 2>/dev/null)" = "$(CURDIR)" ] && \
                runs/code_rev.sh 2>/dev/null || cat .git-rev 2>/dev/null || echo unknown)
CC_VER   := $(shell $(CC) --version 2>/dev/null | head -1)
# off: WITH_<PART>=0 given (then its probe is not even run)
off       = $(filter 0,$(WITH_$(1)))
NVCC_ON  := $(if $(call off,CUDA),,$(NVCC))
NV_VER   := $(if $(NVCC_ON),$(shell $(NVCC) --version 2>/dev/null | tail -2 | head -1),)
DEFS     := -DNBR_GIT_REV='"$(GIT_REV)"'
CFLAGS   := -std=c11 -D_POSIX_C_SOURCE=200809L $(OPT) $(WARN)
NVFLAGS  := -std=c++17 $(NVOPT) $(CUDA_ARCH) -Xcompiler -Wall -lineinfo
LDLIBS   := -lm

# The rooms: common/ is the harness (parameters, state, loop, timers, report, reference,
# check); kernels/ the algorithms' building blocks (kernels/*.c and kernels/cpu/ in C,
# kernels/cuda/ in CUDA); variants/ one program each, composed from them.
COMMON_SRC   := $(wildcard common/*.c)
KCPU_SRC     := $(wildcard kernels/*.c kernels/cpu/*.c)
KCUDA_SRC    := $(wildcard kernels/cuda/*.cu)
CPU_VARIANTS := $(basename $(notdir $(wildcard variants/*.c)))
GPU_VARIANTS := $(basename $(notdir $(wildcard variants/*.cu)))
HEADERS      := $(wildcard common/*.h common/potentials/*.h kernels/*.h kernels/cpu/*.h kernels/cuda/*.cuh kernels/opencl/*.h)

# Building blocks of one program only, linked into it alone with their own flags: the Coulomb
# energy's OpenMP reference (kernels/cpu/coulomb*.c, -fopenmp), its OpenCL host and kernel
# (kernels/opencl/, only where OpenCL headers and an ICD loader are found) and its CUDA kernels
# (kernels/cuda/coulomb*.cu). Every other common/ and kernels/ object goes into every program.
COULOMB_C    := $(wildcard kernels/cpu/coulomb*.c)
COULOMB_CU   := $(wildcard kernels/cuda/coulomb*.cu)
KCPU_SRC     := $(filter-out $(COULOMB_C),$(KCPU_SRC))
KCUDA_SRC    := $(filter-out $(COULOMB_CU),$(KCUDA_SRC))
MD_CPU       := $(filter-out coulomb,$(CPU_VARIANTS))
MD_GPU       := $(filter-out coulomb-cuda,$(GPU_VARIANTS))
OPENCL_FOUND := $(if $(call off,OPENCL),,$(shell echo 'int main(void) { cl_uint n; return (int)clGetPlatformIDs(0, 0, &n); }' | \
                  $(CC) -DCL_TARGET_OPENCL_VERSION=120 -include CL/cl.h -x c - -o /dev/null -lOpenCL >/dev/null 2>&1 && echo yes))
OPENCL_C     := $(if $(OPENCL_FOUND),$(wildcard kernels/opencl/*.c),)
OPENCL_GEN   := $(BUILD)/gen/coulomb_cl_src.c

# gpu-dd (domain decomposition over several GPUs, one MPI process each): its own sources
# (kernels/cuda/dd*.cu) and link line. Built only where MPI is found (mpicc --showme); a halo
# backend (kernels/cuda/dd_halo_<comm>.cu) whose library is not found is compiled as its stub
# (dd_halo_<comm>_absent.cu), which refuses --comm <comm> in one line: the NCCL backend where
# nccl.h is found (the library is opened at run time), the NVSHMEM one where NVSHMEM is.
# Override with MPI_CFLAGS= / MPI_LIBS= / NCCL_CFLAGS=.
DD_ALL_CU    := $(wildcard kernels/cuda/dd*.cu)
KCUDA_SRC    := $(filter-out $(DD_ALL_CU),$(KCUDA_SRC))
MD_GPU       := $(filter-out gpu-dd,$(MD_GPU))
# gpu-onchip's component (kernels/cuda/onchip*.cu): its kernels serve no other program, so the
# others' binaries stay as they were
ONCHIP_CU    := $(wildcard kernels/cuda/onchip*.cu)
KCUDA_SRC    := $(filter-out $(ONCHIP_CU),$(KCUDA_SRC))
MPI_CFLAGS   ?= $(shell mpicc --showme:compile 2>/dev/null)
MPI_LIBS     ?= $(shell mpicc --showme:link 2>/dev/null)
# the header probes: "#" through a variable, since GNU make 4.3 keeps the backslash of "\#"
# inside $(shell) (the probe then compiled "\#include" and found every header) and older makes
# read a bare "#" there as a comment
HASH         := \#
MPI_FOUND    := $(if $(call off,MPI),,$(shell echo '$(HASH)include <mpi.h>' | $(CC) $(MPI_CFLAGS) -E -x c - >/dev/null 2>&1 && echo yes))
NCCL_CFLAGS  ?= $(if $(NCCL_HOME),-I$(NCCL_HOME)/include) -I/usr/local/include -I/usr/local/cuda/include
NCCL_FOUND   := $(if $(call off,NCCL),,$(shell echo '$(HASH)include <nccl.h>' | $(CC) $(NCCL_CFLAGS) -E -x c - >/dev/null 2>&1 && echo yes))
# NVSHMEM (--comm nvshmem): NVSHMEM_HOME, or NVSHMEM_INC and NVSHMEM_LIB apart (distribution
# packages split them); its kernel file is relocatable device code, linked with the device library
NVSHMEM_INC  ?= $(if $(NVSHMEM_HOME),$(NVSHMEM_HOME)/include)
NVSHMEM_LIB  ?= $(if $(NVSHMEM_HOME),$(NVSHMEM_HOME)/lib)
NVSHMEM_FOUND := $(if $(call off,NVSHMEM),,$(if $(and $(NVSHMEM_INC),$(wildcard $(NVSHMEM_INC)/nvshmem.h),$(wildcard $(NVSHMEM_LIB)/libnvshmem_device.a)),yes))
NVSHMEM_LINK := $(if $(NVSHMEM_FOUND),-rdc=true -L$(NVSHMEM_LIB) -lnvshmem_device \
                  -Xlinker $(firstword $(wildcard $(NVSHMEM_LIB)/libnvshmem_host.so $(NVSHMEM_LIB)/libnvshmem_host.so.*)) \
                  -Xlinker -rpath=$(NVSHMEM_LIB))
# the library gpu-dd opens at run time for --comm nccl: one found now, else libnccl.so.2 on the
# loader's path (NBR_NCCL_LIB overrides both at run time)
NCCL_LIBFILE := $(firstword $(wildcard $(if $(NCCL_HOME),$(NCCL_HOME)/lib/libnccl.so.2) /usr/local/lib/libnccl.so.2 \
                  /usr/lib/x86_64-linux-gnu/libnccl.so.2 /usr/local/cuda/lib64/libnccl.so.2 /usr/local/cuda/lib/libnccl.so.2))
DD_NVFLAGS   := $(MPI_CFLAGS)
DD_NCCL_FLAGS := $(NCCL_CFLAGS) $(if $(NCCL_LIBFILE),-DNBR_NCCL_PATH='"$(NCCL_LIBFILE)"')
# each optional backend: its file where its library is found, else its stub
dd_backend    = kernels/cuda/dd_halo_$(1)$(if $(2),,_absent).cu
DD_CU        := $(filter-out kernels/cuda/dd_halo_nccl%.cu kernels/cuda/dd_halo_nvshmem%.cu,$(DD_ALL_CU)) \
                $(call dd_backend,nccl,$(NCCL_FOUND)) $(call dd_backend,nvshmem,$(NVSHMEM_FOUND))
# the files built with the tests' planted faults (dd.cuh's DdPlant, -DNBR_PLANT_DD) for test-dd-plant
DD_PLANT_CU  := kernels/cuda/dd_stages.cu kernels/cuda/dd_domain.cu
GPU_VARIANTS := $(if $(MPI_FOUND),$(GPU_VARIANTS),$(filter-out gpu-dd,$(GPU_VARIANTS)))

# per precision: -DNBR_FLOAT for float
prec_flag = $(if $(filter float,$(1)),-DNBR_FLOAT,)

CPU_BINS := $(foreach p,$(PRECISIONS),$(addprefix $(BUILD)/$(p)/,$(CPU_VARIANTS)))
GPU_BINS := $(if $(NVCC_ON),$(foreach p,$(PRECISIONS),$(addprefix $(BUILD)/$(p)/,$(GPU_VARIANTS))),)
TEST_BINS := $(foreach p,$(PRECISIONS),$(BUILD)/$(p)/test-core $(BUILD)/$(p)/test-loop $(BUILD)/$(p)/test-clock \
               $(BUILD)/$(p)/test-coulomb-clock $(BUILD)/$(p)/test-plant $(BUILD)/$(p)/test-check-u)
# the test builds with a planted fault compiled in (-DNBR_PLANT_*; docs/programs.md "Environment"):
# the programs themselves never carry one. The fault tests run them in double only.
TEST_BINS += $(if $(OPENCL_FOUND),$(BUILD)/double/test-coulomb-cl) \
             $(if $(NVCC_ON),$(foreach p,$(PRECISIONS),$(BUILD)/$(p)/test-components)) \
             $(if $(and $(NVCC_ON),$(MPI_FOUND)),$(BUILD)/double/test-dd-plant)
# test-components: its groups' headers, the host counterparts it links, its planted faults (1-19)
COMPONENT_TEST_H := $(wildcard tests/comp_*.cuh) tests/rebuild_cases.h
COMPONENT_HOST_C := common/fail.c common/potential.c kernels/cpu/cells.c
COMPONENT_PLANTS := 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19
# the test programs with tests/fake_clock.c's known readings in place of common/timers.c's clock
FAKE_CLOCK_SRC := $(filter-out common/timers.c,$(COMMON_SRC)) tests/fake_clock.c

.PHONY: all cpu gpu run test mutants tour info clean plots report site
all: cpu gpu $(TEST_BINS)
# what a missing part's line says: switched off, or not found and how to get it
absent = $(if $(call off,$(1)),switched off (WITH_$(1)=0),$(2))
cpu: $(CPU_BINS)
ifeq ($(OPENCL_FOUND),)
	@echo "OpenCL $(call absent,OPENCL,headers or ICD loader not found (Debian: apt-get install" \
	      "ocl-icd-opencl-dev opencl-headers pocl-opencl-icd)): coulomb built without --impl opencl"
endif
gpu: $(GPU_BINS)
ifeq ($(NVCC_ON),)
	@echo "CUDA $(call absent,CUDA,not found (no nvcc on PATH or in /usr/local/cuda/bin)):" \
	      "CUDA programs ($(GPU_VARIANTS)) not built"
else ifeq ($(MPI_FOUND),)
	@echo "MPI $(call absent,MPI,not found (mpi.h, via mpicc --showme:compile; Debian: apt-get install" \
	      "libopenmpi-dev)): gpu-dd not built"
else
ifeq ($(NCCL_FOUND),)
	@echo "NCCL $(call absent,NCCL,not found (nccl.h; NCCL_HOME=...)): gpu-dd built without --comm nccl"
endif
ifeq ($(NVSHMEM_FOUND),)
	@echo "NVSHMEM $(call absent,NVSHMEM,not found (NVSHMEM_HOME=..., or NVSHMEM_INC= and NVSHMEM_LIB=)):" \
	      "gpu-dd built without --comm nvshmem"
endif
endif

# objects of one precision: build/<p>/<source path>.o
objs = $(patsubst %.c,$(BUILD)/$(1)/%.o,$(2))
define PRECISION_RULES
$(BUILD)/$(1)/%.o: %.c $(HEADERS)
	@mkdir -p $$(@D)
	$(CC) $(CFLAGS) $$(XFLAGS) $(call prec_flag,$(1)) -DNBR_COMPILER='"$(CC_VER)"' -c $$< -o $$@
$(BUILD)/$(1)/common/provenance.o: common/provenance.c $(HEADERS) $(BUILD)/.git-rev-stamp
	@mkdir -p $$(@D)
	$(CC) $(CFLAGS) $(call prec_flag,$(1)) $(DEFS) -DNBR_COMPILER='"$(CC_VER)"' -c $$< -o $$@
$(addprefix $(BUILD)/$(1)/,$(MD_CPU)): $(BUILD)/$(1)/%: $(BUILD)/$(1)/variants/%.o $(call objs,$(1),$(COMMON_SRC) $(KCPU_SRC))
	$(CC) $(CFLAGS) $$^ -o $$@ $(LDLIBS)
# the Coulomb programs: the OpenMP reference, OpenCL where found (its kernel source embedded)
$(call objs,$(1),$(COULOMB_C)): XFLAGS := -fopenmp
$(BUILD)/$(1)/variants/coulomb.o: XFLAGS := $(if $(OPENCL_FOUND),-DNBR_OPENCL,$(if $(call off,OPENCL),-DNBR_OPENCL_OFF))
$(BUILD)/$(1)/gen/coulomb_cl_src.o: $(OPENCL_GEN)
	@mkdir -p $$(@D)
	$(CC) $(CFLAGS) -c $$< -o $$@
$(BUILD)/$(1)/coulomb: $(BUILD)/$(1)/variants/coulomb.o $(call objs,$(1),$(COMMON_SRC) $(KCPU_SRC) $(COULOMB_C) $(OPENCL_C)) $(if $(OPENCL_FOUND),$(BUILD)/$(1)/gen/coulomb_cl_src.o)
	$(CC) $(CFLAGS) -fopenmp $$^ -o $$@ $(LDLIBS) $(if $(OPENCL_FOUND),-lOpenCL)
$(BUILD)/$(1)/test-core: $(BUILD)/$(1)/tests/test_core.o $(call objs,$(1),$(COMMON_SRC) $(KCPU_SRC))
	$(CC) $(CFLAGS) $$^ -o $$@ $(LDLIBS)
$(BUILD)/$(1)/test-loop: $(BUILD)/$(1)/tests/loop_emulator.o $(call objs,$(1),$(COMMON_SRC) $(KCPU_SRC))
	$(CC) $(CFLAGS) $$^ -o $$@ $(LDLIBS)
$(BUILD)/$(1)/test-clock: $(BUILD)/$(1)/variants/cpu-grouped.o $(call objs,$(1),$(FAKE_CLOCK_SRC) $(KCPU_SRC))
	$(CC) $(CFLAGS) $$^ -o $$@ $(LDLIBS)
$(BUILD)/$(1)/test-coulomb-clock: $(BUILD)/$(1)/variants/coulomb.o $(call objs,$(1),$(FAKE_CLOCK_SRC) $(KCPU_SRC) $(COULOMB_C) $(OPENCL_C)) $(if $(OPENCL_FOUND),$(BUILD)/$(1)/gen/coulomb_cl_src.o)
	$(CC) $(CFLAGS) -fopenmp $$^ -o $$@ $(LDLIBS) $(if $(OPENCL_FOUND),-lOpenCL)
# cpu-grouped with one planted fault (tests/check_plant.c), for the tests of --check itself
$(BUILD)/$(1)/test-plant: $(BUILD)/$(1)/tests/check_plant.o $(call objs,$(1),$(COMMON_SRC) $(KCPU_SRC))
	$(CC) $(CFLAGS) $$^ -o $$@ $(LDLIBS)
# cpu-layer whose --check adds NBR_CHECK_PLANT_U's error to atom 0's U (check.c, -DNBR_PLANT_CHECK_U)
$(BUILD)/$(1)/plant/common/check.o: common/check.c $(HEADERS)
	@mkdir -p $$(@D)
	$(CC) $(CFLAGS) $(call prec_flag,$(1)) -DNBR_PLANT_CHECK_U -c $$< -o $$@
$(BUILD)/$(1)/test-check-u: $(BUILD)/$(1)/variants/cpu-layer.o $(BUILD)/$(1)/plant/common/check.o \
                            $(call objs,$(1),$(filter-out common/check.c,$(COMMON_SRC)) $(KCPU_SRC))
	$(CC) $(CFLAGS) $$^ -o $$@ $(LDLIBS)
# coulomb whose OpenCL limits NBR_CL_FAKE_* can lower (coulomb_cl.c, -DNBR_PLANT_CL_LIMITS)
$(BUILD)/$(1)/plant/kernels/opencl/coulomb_cl.o: kernels/opencl/coulomb_cl.c $(HEADERS)
	@mkdir -p $$(@D)
	$(CC) $(CFLAGS) $(call prec_flag,$(1)) -DNBR_PLANT_CL_LIMITS -c $$< -o $$@
$(BUILD)/$(1)/test-coulomb-cl: $(BUILD)/$(1)/variants/coulomb.o $(BUILD)/$(1)/plant/kernels/opencl/coulomb_cl.o \
                               $(call objs,$(1),$(COMMON_SRC) $(KCPU_SRC) $(COULOMB_C)) $(BUILD)/$(1)/gen/coulomb_cl_src.o
	$(CC) $(CFLAGS) -fopenmp $$^ -o $$@ $(LDLIBS) -lOpenCL
# CUDA: kernels/cuda objects shared by every GPU variant; the C objects linked in as they are
$(BUILD)/$(1)/%.cu.o: %.cu $(HEADERS)
	@mkdir -p $$(@D)
	$(NVCC) $(NVFLAGS) $$(XNVFLAGS) $(call prec_flag,$(1)) -DNBR_COMPILER='"nvcc $(NV_VER)"' -c $$< -o $$@
$(addprefix $(BUILD)/$(1)/,$(MD_GPU)): $(BUILD)/$(1)/%: $(BUILD)/$(1)/variants/%.cu.o $(patsubst %.cu,$(BUILD)/$(1)/%.cu.o,$(KCUDA_SRC)) $(call objs,$(1),$(COMMON_SRC) $(KCPU_SRC))
	$(NVCC) $(NVFLAGS) $$^ -o $$@ $(LDLIBS)
$(BUILD)/$(1)/gpu-onchip: $(patsubst %.cu,$(BUILD)/$(1)/%.cu.o,$(ONCHIP_CU))
# the device components in small kernels against their host counterparts (tests/test_components.cu,
# its groups in tests/comp_*.cuh; the host side: COMPONENT_HOST_C's objects)
$(BUILD)/$(1)/tests/test_components.cu.o: $(COMPONENT_TEST_H)
$(BUILD)/$(1)/test-components: $(BUILD)/$(1)/tests/test_components.cu.o $(call objs,$(1),$(COMPONENT_HOST_C))
	$(NVCC) $(NVFLAGS) $$^ -o $$@ $(LDLIBS)
$(BUILD)/$(1)/coulomb-cuda: $(BUILD)/$(1)/variants/coulomb-cuda.cu.o $(patsubst %.cu,$(BUILD)/$(1)/%.cu.o,$(COULOMB_CU)) $(call objs,$(1),$(COMMON_SRC) $(KCPU_SRC) $(COULOMB_C))
	$(NVCC) $(NVFLAGS) -Xcompiler -fopenmp $$^ -o $$@ $(LDLIBS)
endef
$(foreach p,$(PRECISIONS),$(eval $(call PRECISION_RULES,$(p))))

# gpu-dd's objects take MPI's (and NCCL's) include flags; the program links MPI and libdl
define DD_RULES
$(patsubst %.cu,$(BUILD)/$(1)/%.cu.o,$(DD_CU) variants/gpu-dd.cu): XNVFLAGS := $(DD_NVFLAGS)
$(BUILD)/$(1)/kernels/cuda/dd_halo_nccl.cu.o: XNVFLAGS := $(DD_NVFLAGS) $(DD_NCCL_FLAGS)
$(BUILD)/$(1)/kernels/cuda/dd_halo_nvshmem.cu.o: XNVFLAGS := $(DD_NVFLAGS) $(if $(NVSHMEM_FOUND),-I$(NVSHMEM_INC) -rdc=true)
$(BUILD)/$(1)/gpu-dd: $(BUILD)/$(1)/variants/gpu-dd.cu.o $(patsubst %.cu,$(BUILD)/$(1)/%.cu.o,$(DD_CU) $(KCUDA_SRC)) $(call objs,$(1),$(COMMON_SRC) $(KCPU_SRC))
	$(NVCC) $(NVFLAGS) $$^ -o $$@ $(LDLIBS) $(MPI_LIBS) -ldl $(NVSHMEM_LINK)
# gpu-dd with the tests' planted faults: DD_PLANT_CU compiled with -DNBR_PLANT_DD
$(patsubst %.cu,$(BUILD)/$(1)/plant/%.cu.o,$(DD_PLANT_CU)): $(BUILD)/$(1)/plant/%.cu.o: %.cu $(HEADERS) $(BUILD)/features
	@mkdir -p $$(@D)
	$(NVCC) $(NVFLAGS) $(DD_NVFLAGS) -DNBR_PLANT_DD $(call prec_flag,$(1)) -DNBR_COMPILER='"nvcc $(NV_VER)"' -c $$< -o $$@
$(BUILD)/$(1)/test-dd-plant: $(BUILD)/$(1)/variants/gpu-dd.cu.o $(patsubst %.cu,$(BUILD)/$(1)/plant/%.cu.o,$(DD_PLANT_CU)) \
        $(patsubst %.cu,$(BUILD)/$(1)/%.cu.o,$(filter-out $(DD_PLANT_CU),$(DD_CU)) $(KCUDA_SRC)) $(call objs,$(1),$(COMMON_SRC) $(KCPU_SRC))
	$(NVCC) $(NVFLAGS) $$^ -o $$@ $(LDLIBS) $(MPI_LIBS) -ldl $(NVSHMEM_LINK)
endef
$(if $(MPI_FOUND),$(foreach p,$(PRECISIONS),$(eval $(call DD_RULES,$(p)))))

# test-components with planted fault K of a device component (-DCOMPONENT_PLANT=K,
# kernels/component_plant.h; docs/mutants.md): double only, built by tests/cases_52_components.sh
# where a GPU is (or by name), not by make
define COMPONENT_PLANT_RULES
$(BUILD)/double/plant-components-$(1)/test_components.cu.o: tests/test_components.cu $(HEADERS) $(COMPONENT_TEST_H)
	@mkdir -p $$(@D)
	$(NVCC) $(NVFLAGS) -DCOMPONENT_PLANT=$(1) -c $$< -o $$@
$(BUILD)/double/test-components-plant-$(1): $(BUILD)/double/plant-components-$(1)/test_components.cu.o \
        $(call objs,double,$(COMPONENT_HOST_C))
	$(NVCC) $(NVFLAGS) $$^ -o $$@ $(LDLIBS)
endef
$(if $(NVCC_ON),$(foreach k,$(COMPONENT_PLANTS),$(eval $(call COMPONENT_PLANT_RULES,$(k)))))

# gpu-cluster with planted fault K of its list or force kernel (-DCLUSTER_PLANT=K, kernels/cuda/
# cluster_list.cuh): built on demand by tests/cases_57_cluster.sh where a GPU is, not by make
CLUSTER_PLANT_CU := kernels/cuda/cluster_list.cu kernels/cuda/cluster_force.cu kernels/cuda/integrate.cu
define CLUSTER_PLANT_RULES
$(patsubst %.cu,$(BUILD)/$(1)/plant-cluster-$(2)/%.cu.o,$(CLUSTER_PLANT_CU)): $(BUILD)/$(1)/plant-cluster-$(2)/%.cu.o: %.cu $(HEADERS)
	@mkdir -p $$(@D)
	$(NVCC) $(NVFLAGS) $(call prec_flag,$(1)) -DCLUSTER_PLANT=$(2) -DNBR_COMPILER='"nvcc $(NV_VER)"' -c $$< -o $$@
$(BUILD)/$(1)/test-cluster-plant-$(2): $(BUILD)/$(1)/variants/gpu-cluster.cu.o \
        $(patsubst %.cu,$(BUILD)/$(1)/plant-cluster-$(2)/%.cu.o,$(CLUSTER_PLANT_CU)) \
        $(patsubst %.cu,$(BUILD)/$(1)/%.cu.o,$(filter-out $(CLUSTER_PLANT_CU),$(KCUDA_SRC))) $(call objs,$(1),$(COMMON_SRC) $(KCPU_SRC))
	$(NVCC) $(NVFLAGS) $$^ -o $$@ $(LDLIBS)
endef
$(if $(NVCC_ON),$(foreach p,$(PRECISIONS),$(foreach k,1 2 3 4 5 6 7,$(eval $(call CLUSTER_PLANT_RULES,$(p),$(k))))))

# gpu-rumd with planted fault K of its chunk kernel (-DRUMD_CHUNK_PLANT=K, kernels/cuda/rumd_chunk.cu):
# built on demand by tests/cases_55_rumd.sh where a GPU is, not by make
define RUMD_CHUNK_PLANT_RULES
$(BUILD)/$(1)/plant-rumd-chunk-$(2)/rumd_chunk.cu.o: kernels/cuda/rumd_chunk.cu $(HEADERS)
	@mkdir -p $$(@D)
	$(NVCC) $(NVFLAGS) $(call prec_flag,$(1)) -DRUMD_CHUNK_PLANT=$(2) -c $$< -o $$@
$(BUILD)/$(1)/test-rumd-chunk-plant-$(2): $(BUILD)/$(1)/variants/gpu-rumd.cu.o $(BUILD)/$(1)/plant-rumd-chunk-$(2)/rumd_chunk.cu.o \
        $(patsubst %.cu,$(BUILD)/$(1)/%.cu.o,$(filter-out kernels/cuda/rumd_chunk.cu,$(KCUDA_SRC))) \
        $(call objs,$(1),$(COMMON_SRC) $(KCPU_SRC))
	$(NVCC) $(NVFLAGS) $$^ -o $$@ $(LDLIBS)
endef
$(if $(NVCC_ON),$(foreach p,$(PRECISIONS),$(foreach k,1 2 3,$(eval $(call RUMD_CHUNK_PLANT_RULES,$(p),$(k))))))

# cpu-cluster with planted fault K of its list or force loops (-DCLUSTER_PLANT=K, kernels/cpu/
# cluster_list.h): built on demand by tests/cases_58_cpu_cluster.sh, not by make
CPU_CLUSTER_PLANT_C := $(wildcard kernels/cpu/cluster_list.c kernels/cpu/cluster_force*.c)
define CPU_CLUSTER_PLANT_RULES
$(patsubst %.c,$(BUILD)/$(1)/plant-cpu-cluster-$(2)/%.o,$(CPU_CLUSTER_PLANT_C)): $(BUILD)/$(1)/plant-cpu-cluster-$(2)/%.o: %.c $(HEADERS)
	@mkdir -p $$(@D)
	$(CC) $(CFLAGS) $(call prec_flag,$(1)) -DCLUSTER_PLANT=$(2) -c $$< -o $$@
$(BUILD)/$(1)/test-cpu-cluster-plant-$(2): $(BUILD)/$(1)/variants/cpu-cluster.o \
        $(patsubst %.c,$(BUILD)/$(1)/plant-cpu-cluster-$(2)/%.o,$(CPU_CLUSTER_PLANT_C)) \
        $(call objs,$(1),$(COMMON_SRC) $(filter-out $(CPU_CLUSTER_PLANT_C),$(KCPU_SRC)))
	$(CC) $(CFLAGS) $$^ -o $$@ $(LDLIBS)
endef
$(foreach p,$(PRECISIONS),$(foreach k,1 2 3 4 5 6,$(eval $(call CPU_CLUSTER_PLANT_RULES,$(p),$(k)))))

# The OpenCL kernel source as a C string (the program builds it at run time for its options).
$(OPENCL_GEN): kernels/opencl/coulomb.cl
	@mkdir -p $(@D)
	{ echo 'const char coulomb_cl_source[] ='; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' $<; echo ';'; } >$@

# Provenance: provenance.c bakes the revision into every CSV row, so it is recompiled
# whenever the revision changes (the stamp file is rewritten only then).
REV_STAMP := $(BUILD)/.git-rev-stamp
$(shell mkdir -p $(BUILD) && (echo '$(GIT_REV)' | cmp -s - $(REV_STAMP) || echo '$(GIT_REV)' > $(REV_STAMP)))
# The optional parts built, as name=yes (built), name=off (WITH_<PART>=0) or name= (not found)
# lines in $(BUILD)/features: the tests read it to name why they SKIP. The libraries found (OpenCL, NCCL, NVSHMEM) change how
# coulomb.o and gpu-dd's objects compile: they depend on this file, rewritten only when the set
# changes, so a library installed (or removed) after a build rebuilds what it affects.
feature   = $(if $(call off,$(1)),off,$(2))
FEATURES := cuda=$(call feature,CUDA,$(if $(NVCC_ON),yes)) opencl=$(call feature,OPENCL,$(OPENCL_FOUND)) \
            mpi=$(call feature,MPI,$(MPI_FOUND)) nccl=$(call feature,NCCL,$(NCCL_FOUND)) nccl_lib=$(NCCL_LIBFILE) \
            nvshmem=$(call feature,NVSHMEM,$(NVSHMEM_FOUND)) nvshmem_inc=$(NVSHMEM_INC)
FEATURE_STAMP := $(BUILD)/features
$(shell mkdir -p $(BUILD) && (printf '%s\n' $(FEATURES) | cmp -s - $(FEATURE_STAMP) || printf '%s\n' $(FEATURES) > $(FEATURE_STAMP)))
$(foreach p,$(PRECISIONS),$(BUILD)/$(p)/variants/coulomb.o $(if $(MPI_FOUND),$(patsubst %.cu,$(BUILD)/$(p)/%.cu.o,$(DD_CU) variants/gpu-dd.cu))): $(FEATURE_STAMP)
.SECONDARY:

# make run: what can run here. The CUDA programs only where a GPU is found (or where make gpu
# built them); on a machine without one, compiling them would take most of make run's time.
run: cpu
	@if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q GPU; then \
	    $(MAKE) --no-print-directory gpu; \
	else echo "no GPU found: the CUDA programs are not built for make run (make gpu builds them)"; fi
	BUILD=$(BUILD) runs/default.sh

test: all
	@[ -n "$$NBR_PYTHON" ] || [ -x "$(BUILD)/venv/bin/python" ] || echo "make test: the plot tests first set up" \
	    "$(BUILD)/venv from PyPI (pandas, matplotlib, markdown: about 280 MB; plots/venv.sh); NBR_PYTHON=<python with" \
	    "them> uses yours, and without python3-venv or PyPI those tests SKIP"
	tests/run.sh

# mutation test (docs/mutants.md): each fault of tests/mutants.txt planted in a scratch copy, its
# tests run there; FILES=... only the faults in those files, MUTANTS_BASE=REV those a change touched
mutants:
	tests/mutants.sh $(if $(FILES),--files '$(FILES)') $(if $(MUTANTS_BASE),--changed '$(MUTANTS_BASE)') $(if $(MUTANTS),--only '$(MUTANTS)')

# the CPU stops need only the CPU programs; GPU stops run where `make gpu` has built theirs
tour: cpu
	BUILD=$(BUILD) runs/tour.py run

# regression tracking (README "Regression tracking"): the quick and full benchmark suites
# (runs/suites.txt) append to results/<machine>/bench.csv; history plots them against the
# commit order. A/B comparisons of two revisions: runs/compare.sh A B [SUITE].
.PHONY: bench bench-full history
bench: all
	BUILD=$(BUILD) runs/bench.sh quick
bench-full: all
	BUILD=$(BUILD) runs/bench.sh full
history:
	runs/history.sh

plots:
	BUILD=$(BUILD) plots/all.sh

report:
	BUILD=$(BUILD) runs/report.sh

# static HTML of the report, figures, regression history and comparisons (plots/site.sh):
# results/<cpu>/site/index.html, opened from the file system
site:
	BUILD=$(BUILD) plots/site.sh

info:
	@echo "nbrlab $(GIT_REV)"
	@echo "cc:     $(CC_VER)"
	@echo "flags:  $(OPT)"
	@echo "nvcc:   $(if $(NVCC_ON),$(NV_VER) ($(NVCC)),$(call absent,CUDA,not found))"
	@echo "arch:   $(CUDA_ARCH)"
	@echo "parts:  $(foreach x,CUDA OPENCL MPI NCCL NVSHMEM,$(x)=$(if $(call off,$(x)),off,$(if \
	    $(filter yes,$(if $(filter CUDA,$(x)),$(if $(NVCC_ON),yes),$($(x)_FOUND))),on,absent)))" \
	      "(WITH_<PART>=0 switches one off)"
	@echo "cpu:    $$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
	@echo "gpu:    $$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo none)"
	@echo "kernel: $$(uname -sr)"

clean:
	rm -rf $(BUILD)
