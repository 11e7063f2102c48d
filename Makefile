# Top-level build. `make run` and `make test` are the two entry points (README).
#   make [BOARD=vexpress-a9|vexpress-a15|qemu-tc2|tc2]   kernel image + DTB
#   make run [RUN='cmd; cmd'] [ICOUNT=0]                  boot in QEMU
#   make test                                             every test
#   make host                                             host tools and tests
# Per-board settings live in boards/<board>/board.mk.

BOARD  ?= vexpress-a9
BOARDS := vexpress-a9 vexpress-a15 qemu-tc2 tc2
QEMU_BOARDS := vexpress-a9 vexpress-a15 qemu-tc2
PYTHON := /usr/bin/python3

ifeq ($(filter $(BOARD),$(BOARDS)),)
$(error unknown BOARD '$(BOARD)': choose one of $(BOARDS))
endif

.DEFAULT_GOAL := all
.PHONY: all run test mutate host deps test-deps experiment-deps clean boards experiment outside $(addprefix kernel-,$(BOARDS))
# Everything is built by rules below; no implicit rules or old-suffix magic.
MAKEFLAGS += --no-builtin-rules
.SUFFIXES:
.SECONDARY:

all: deps kernel-$(BOARD) host

# Debian packages: what running needs (make run), what the tests need (make test).
deps:
	@tools/ensure-deps.sh run
test-deps:
	@tools/ensure-deps.sh test
experiment-deps:
	@tools/ensure-deps.sh experiment

# ---------------------------------------------------------------- ARM kernel
CROSS   ?= arm-none-eabi-
ARM_CC  := $(CROSS)gcc
OBJCOPY := $(CROSS)objcopy
DTC     ?= dtc

WARN      := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
ARM_COMMON := -marm -mfpu=vfpv3-d16 -mfloat-abi=hard -O2 -g -std=gnu11 \
	$(WARN) -fno-common -ffunction-sections -fdata-sections \
	-Iinclude -DCONFIG_NR_CPUS=8
# Boot and driver code is ARM-only; kernel/ is the portable core.
ARM_SRCS := $(sort $(wildcard boot/*.S boot/*.c drivers/*.c kernel/*/*.c))

# One sub-make per board so that board.mk variables stay per board.
define board_rules
kernel-$(1): build/$(1)/kernel.bin build/$(1)/$(1).dtb
build/$(1)/kernel.bin build/$(1)/kernel.elf: $$(ARM_SRCS) $$(wildcard include/*/*.h include/*/*/*.h boot/*.h linker/*.ld) boards/$(1)/board.mk Makefile mk/kernel.mk
	@$$(MAKE) --no-print-directory -f mk/kernel.mk BOARD=$(1)
build/$(1)/$(1).dtb: boards/$(1)/$(1).dts $$(wildcard boards/$(1)/*.dtsi boards/common/*.dtsi)
	@mkdir -p $$(@D)
	$$(DTC) -I dts -O dtb -i boards/common -o $$@ $$<
endef
$(foreach b,$(BOARDS),$(eval $(call board_rules,$(b))))

# Debug kernels (scheduler invariants asserted from the tick) in build/<board>-debug/.
kernel-debug-%: deps
	@$(MAKE) --no-print-directory -f mk/kernel.mk BOARD=$* DEBUG=1

boards: $(addprefix kernel-,$(BOARDS))

# ---------------------------------------------------------------- host side
HOST_CC     ?= gcc
HOST_CFLAGS := -O1 -g -std=gnu11 $(WARN) -Iinclude -I. -Itests/host \
	-DCONFIG_NR_CPUS=1024 -DHOST_BUILD
# Sanitized builds (host tests, fuzzers) also check the hot-path invariants
# that release kernels leave to them (KASSERT_DEBUG, include/kernel/lib/panic.h).
SAN_FLAGS   := -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=undefined -DCONFIG_SCHED_DEBUG
# Driver files that are plain C (a register sequence behind accessors, a
# counter's halves) are host-tested too: they join the host library.
HOST_DRIVER_SRCS := drivers/energy_meter.c drivers/tc2_spc.c drivers/sys_cfg.c drivers/tc2_pm.c
CORE_SRCS   := $(sort $(wildcard kernel/*/*.c tools/ports/host/*.c) $(HOST_DRIVER_SRCS))
TEST_SRCS   := $(sort $(wildcard tests/host/test_*.c))
TOOL_SRCS   := $(sort $(wildcard tools/*.c))
HOST_TESTS  := $(patsubst tests/host/%.c,build/host/%,$(TEST_SRCS))
HOST_TOOLS  := $(patsubst tools/%.c,build/host/%,$(TOOL_SRCS))
HDRS        := $(wildcard include/*/*.h include/*/*/*.h kernel/*/*.h tests/host/*.h tools/ports/*/*.h)

# Tests link the core built with ASan + UBSan; tools link a plain build.
build/host/san/%.o: %.c $(HDRS)
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) $(SAN_FLAGS) -c -o $@ $<
build/host/obj/%.o: %.c $(HDRS)
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) -c -o $@ $<
build/host/libkcore-san.a: $(patsubst %.c,build/host/san/%.o,$(CORE_SRCS))
	@rm -f $@; ar rcs $@ $^
build/host/libkcore.a: $(patsubst %.c,build/host/obj/%.o,$(CORE_SRCS))
	@rm -f $@; ar rcs $@ $^
# Test helpers (ktest, a test's own placement policy ...): every tests/host/*.c
# that is not a test, in an archive, so a test links the ones it uses.
TEST_HELPER_SRCS := $(filter-out $(TEST_SRCS),$(wildcard tests/host/*.c))
build/host/libktest.a: $(patsubst %.c,build/host/san/%.o,$(TEST_HELPER_SRCS))
	@rm -f $@; ar rcs $@ $^
# The kernel's archive is linked whole: objects nothing names (a placement
# policy, a console command) register themselves through link-time tables.
WHOLE = -Wl,--whole-archive $(1) -Wl,--no-whole-archive
build/host/test_%: build/host/san/tests/host/test_%.o build/host/libktest.a build/host/libkcore-san.a
	$(HOST_CC) $(SAN_FLAGS) -o $@ $< build/host/libktest.a $(call WHOLE,build/host/libkcore-san.a) -lm -lpthread
build/host/%: build/host/obj/tools/%.o build/host/libkcore.a
	$(HOST_CC) -o $@ $< $(call WHOLE,build/host/libkcore.a) -lm

# The simulator (tools/schedsim, docs/schedsim.md): the kernel compiled for
# its own port, optimised, with room for more tasks and stacks sized for
# CONFIG_NR_CPUS=1024 (an energy snapshot on a stack is 41 KiB).
# Link-time optimisation: the scheduler's paths cross files (as on ARM).
SIM_CFLAGS := -O2 -flto=auto -g -std=gnu11 $(WARN) -Iinclude -I. -DCONFIG_NR_CPUS=1024 -DHOST_BUILD \
	-DCONFIG_MAX_TASKS=2048 -DCONFIG_TASK_STACK_SIZE=262144 -DCONFIG_MAX_TEST_TASKS=1536 \
	-DCONFIG_MAX_RAILS=256
SIM_KERNEL_SRCS := $(sort $(wildcard kernel/*/*.c))
SIM_SRCS := $(sort $(wildcard tools/schedsim/*.c tools/ports/sim/*.c tools/ports/sim/*.S)) tools/ports/host/no_power.c
build/host/sim/%.c.o: %.c $(HDRS) tools/ports/sim/sim.h
	@mkdir -p $(@D)
	$(HOST_CC) $(SIM_CFLAGS) -c -o $@ $<
build/host/sim/%.S.o: %.S
	@mkdir -p $(@D)
	$(HOST_CC) -c -o $@ $<
build/host/libkcore-sim.a: $(patsubst %,build/host/sim/%.o,$(SIM_KERNEL_SRCS))
	@rm -f $@; gcc-ar rcs $@ $^
build/host/schedsim: $(patsubst %,build/host/sim/%.o,$(SIM_SRCS)) build/host/libkcore-sim.a
	$(HOST_CC) $(SIM_CFLAGS) -o $@ $(filter-out %.a,$^) $(call WHOLE,build/host/libkcore-sim.a) -lm

# DTBs used by host tests: every board's and the fixtures in tests/dts.
TEST_DTBS := $(patsubst tests/dts/%.dts,build/host/dts/%.dtb,$(wildcard tests/dts/*.dts))
build/host/dts/%.dtb: tests/dts/%.dts
	@mkdir -p $(@D)
	$(DTC) -I dts -O dtb -o $@ $<

# Real inputs written by others (Linux's DTBs of the boards, rt-app's examples
# and binary), from Debian's packages into build/outside/ (tools/outside-inputs.sh):
# never copies in the tree.
outside:
	@tools/outside-inputs.sh all

host: $(HOST_TESTS) $(HOST_TOOLS) $(TEST_DTBS) build/host/schedsim

# ---------------------------------------------------------------- run / test
ICOUNT ?= 1
# Without RUN, the demo: tools/demo-table runs the simulator on qemu-tc2's DT first.
run: deps kernel-$(BOARD) $(if $(RUN),,build/host/schedsim build/qemu-tc2/qemu-tc2.dtb)
	@$(PYTHON) tools/qemu-run --board $(BOARD) --icount $(ICOUNT) \
		$(if $(RUN),--run '$(RUN)',--demo)

test: test-deps boards kernel-debug-qemu-tc2 host outside
	@$(PYTHON) tests/run.py $(if $(STRICT),--strict)

# The seeds' tables and pack=energy's verdicts on the simulator and in QEMU
# (tools/experiment seeds; QUICK=1: QEMU only for the seeds' two tables).
# build/experiment/index.html shows the tables and the plots.
experiment: deps experiment-deps kernel-vexpress-a9 kernel-qemu-tc2 build/tc2/tc2.dtb build/host/schedtopo build/host/schedsim
	@$(PYTHON) tools/experiment seeds --out build/experiment $(if $(QUICK),--quick)

# Mutation testing (tools/mutate, tests/mutants.txt): each listed source edit, one
# at a time in a scratch copy, must make a fast test (host + simulator) fail.
# Prints the survivors; exit status 1 unless every mutant is killed.
mutate: host $(foreach b,$(BOARDS),build/$(b)/$(b).dtb)
	@$(PYTHON) tools/mutate $(if $(ONLY),--only $(ONLY))

clean:
	rm -rf build
include mk/fuzz.mk
include mk/hardware.mk
include mk/bench.mk
