# Fuzzing and static checks. Included at the end of the top Makefile, so
# WARN, HOST_CC, HOST_CFLAGS, SAN_FLAGS, CORE_SRCS, HDRS and PYTHON are set.
#
#   make fuzz [FUZZ_SECONDS=60] [FUZZ_TARGETS='fdt shell'] [FUZZ_ARGS=-jobs=2]
#       libFuzzer (clang, ASan + UBSan) runs each target FUZZ_SECONDS seconds
#       from tests/fuzz/corpus/<target> (seeds and regression inputs, read
#       only); what it learns goes to build/fuzz/corpus/<target>, crashes to
#       build/fuzz/artifacts/<target>/. Also the rt-app JSON fuzzer
#       (tests/fuzz/rtapp_fuzz.py) when tools/rtapp exists. Fails if
#       anything crashed, naming the inputs.
#   make fuzz-regress
#       every corpus input through each harness once, built with gcc +
#       ASan/UBSan and a plain main (tests/fuzz/regress_main.c): no clang
#       needed. `make test` runs the same from tests/qemu/test_fuzz_regress.py.
#   make fuzz-merge
#       fold build/fuzz/corpus/<target> into tests/fuzz/corpus/<target>,
#       keeping only inputs that add coverage (libFuzzer -merge=1).
#   make lint
#       cppcheck and clang-tidy (.clang-tidy) over boot/ drivers/ kernel/
#       tools/ tests/fuzz/, in the host configuration (CONFIG_NR_CPUS=1024)
#       and the ARM one (CONFIG_NR_CPUS=8, arm-none-eabi, newlib headers).
#       Zero findings or it fails; suppressions are inline and justified.
#
# Targets (tests/fuzz/fuzz_<name>.c): fdt, shell, cmdline, pelt, pelt_tool,
# schedtopo, and schedtopo_nr8 (fuzz_schedtopo.c with CONFIG_NR_CPUS=8).

.PHONY: fuzz fuzz-bins fuzz-regress fuzz-regress-bins fuzz-merge lint lint-deps \
	lint-cppcheck lint-clang-tidy

FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_ALL     := fdt shell cmdline pelt pelt_tool schedtopo schedtopo_nr8
FUZZ_TARGETS ?= $(FUZZ_ALL)
FUZZ_ARGS    ?=
FUZZ_OUT     := build/fuzz
FUZZ_CORPUS  := tests/fuzz/corpus

# Harness source and CONFIG_NR_CPUS of a target.
fuzz_src = tests/fuzz/fuzz_$(patsubst %_nr8,%,$(1)).c
fuzz_nr  = $(if $(filter %_nr8,$(1)),8,1024)
# libFuzzer options per target: DTBs need room (a 33-CPU tree is ~6 KiB).
FUZZ_OPTS_fdt           := -max_len=16384 -dict=tests/fuzz/fdt.dict
FUZZ_OPTS_schedtopo     := -max_len=16384 -dict=tests/fuzz/fdt.dict
FUZZ_OPTS_schedtopo_nr8 := -max_len=16384 -dict=tests/fuzz/fdt.dict
FUZZ_OPTS_shell         := -dict=tests/fuzz/shell.dict
FUZZ_OPTS_cmdline       := -dict=tests/fuzz/shell.dict
FUZZ_OPTS_pelt_tool     := -dict=tests/fuzz/pelt_tool.dict

FUZZ_HDRS  := $(HDRS) tests/fuzz/fuzz.h $(wildcard tools/*.c)
# Kernel core for the fuzzers: clang, coverage + ASan + UBSan, per NR_CPUS.
FUZZ_CFLAGS = -O1 -g -std=gnu11 -Wall -Wextra -Iinclude -I. -Itests/host -DHOST_BUILD \
	-fno-omit-frame-pointer -fno-sanitize-recover=undefined

# gcc -Werror is the kernel's warning gate; clang's extra opinions on code
# others own are for `make lint`, not for the fuzz build.
FUZZ_CORE_QUIET := -Wno-unused-but-set-variable

define fuzz_core_rules
$(FUZZ_OUT)/clang-$(1)/%.o: %.c $(HDRS)
	@mkdir -p $$(@D)
	@echo "  FUZZCC $(1) $$<"
	@$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_CORE_QUIET) -DCONFIG_NR_CPUS=$(1) -fsanitize=fuzzer-no-link,address,undefined \
	  -c -o $$@ $$<
$(FUZZ_OUT)/clang-$(1)/libkcore.a: $(patsubst %.c,$(FUZZ_OUT)/clang-$(1)/%.o,$(CORE_SRCS))
	@rm -f $$@; ar rcs $$@ $$^
endef
$(foreach n,8 1024,$(eval $(call fuzz_core_rules,$(n))))

# Kernel core for the regression drivers: gcc, ASan + UBSan. NR_CPUS=1024 is
# the host tests' build/host/libkcore-san.a; NR_CPUS=8 is built here.
FUZZ_GCC_CFLAGS = $(filter-out -DCONFIG_NR_CPUS=%,$(HOST_CFLAGS)) $(SAN_FLAGS)
$(FUZZ_OUT)/gcc-8/%.o: %.c $(HDRS)
	@mkdir -p $(@D)
	$(HOST_CC) $(FUZZ_GCC_CFLAGS) -DCONFIG_NR_CPUS=8 -c -o $@ $<
$(FUZZ_OUT)/gcc-8/libkcore-san.a: $(patsubst %.c,$(FUZZ_OUT)/gcc-8/%.o,$(CORE_SRCS))
	@rm -f $@; ar rcs $@ $^
fuzz_gcc_lib = $(if $(filter %_nr8,$(1)),$(FUZZ_OUT)/gcc-8/libkcore-san.a,build/host/libkcore-san.a)

$(FUZZ_OUT)/regress/regress_main.o: tests/fuzz/regress_main.c tests/fuzz/fuzz.h
	@mkdir -p $(@D)
	$(HOST_CC) $(FUZZ_GCC_CFLAGS) -c -o $@ $<

define fuzz_target_rules
$(FUZZ_OUT)/libfuzzer/$(1): $(call fuzz_src,$(1)) $(FUZZ_OUT)/clang-$(call fuzz_nr,$(1))/libkcore.a $(FUZZ_HDRS)
	@mkdir -p $$(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Werror -DCONFIG_NR_CPUS=$(call fuzz_nr,$(1)) \
	  -fsanitize=fuzzer,address,undefined -o $$@ $$< $(FUZZ_OUT)/clang-$(call fuzz_nr,$(1))/libkcore.a -lm
$(FUZZ_OUT)/regress/$(1).o: $(call fuzz_src,$(1)) $(FUZZ_HDRS)
	@mkdir -p $$(@D)
	$(HOST_CC) $(FUZZ_GCC_CFLAGS) -DCONFIG_NR_CPUS=$(call fuzz_nr,$(1)) -c -o $$@ $$<
$(FUZZ_OUT)/regress/$(1): $(FUZZ_OUT)/regress/$(1).o $(FUZZ_OUT)/regress/regress_main.o $(call fuzz_gcc_lib,$(1))
	$(HOST_CC) $(SAN_FLAGS) -o $$@ $$^ -lm -lpthread
endef
$(foreach t,$(FUZZ_ALL),$(eval $(call fuzz_target_rules,$(t))))

FUZZ_BINS    := $(addprefix $(FUZZ_OUT)/libfuzzer/,$(FUZZ_TARGETS))
REGRESS_BINS := $(addprefix $(FUZZ_OUT)/regress/,$(FUZZ_ALL))

fuzz-bins: $(FUZZ_BINS)
fuzz-regress-bins: $(REGRESS_BINS)
# `make test` runs the corpus (tests/qemu/test_fuzz_regress.py): build it first.
test: fuzz-regress-bins

fuzz: fuzz-bins
	@command -v $(FUZZ_CC) >/dev/null || { echo "fuzz: $(FUZZ_CC) not found (apt-get install clang llvm)" >&2; exit 1; }
	@set -u; failed=; \
	for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(FUZZ_OUT)/corpus/$$t $(FUZZ_OUT)/artifacts/$$t; \
	  echo "== fuzz $$t: $(FUZZ_SECONDS) s (log: $(FUZZ_OUT)/$$t.log)"; \
	  opts=; case $$t in \
	    fdt) opts="$(FUZZ_OPTS_fdt)";; schedtopo) opts="$(FUZZ_OPTS_schedtopo)";; \
	    schedtopo_nr8) opts="$(FUZZ_OPTS_schedtopo_nr8)";; shell) opts="$(FUZZ_OPTS_shell)";; \
	    cmdline) opts="$(FUZZ_OPTS_cmdline)";; pelt_tool) opts="$(FUZZ_OPTS_pelt_tool)";; \
	  esac; \
	  if ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	     $(FUZZ_OUT)/libfuzzer/$$t -max_total_time=$(FUZZ_SECONDS) -timeout=20 -rss_limit_mb=2048 \
	       -print_final_stats=1 -artifact_prefix=$(FUZZ_OUT)/artifacts/$$t/ $$opts $(FUZZ_ARGS) \
	       $(FUZZ_OUT)/corpus/$$t $(FUZZ_CORPUS)/$$t >$(FUZZ_OUT)/$$t.log 2>&1; then \
	    grep -E '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)' \
	      $(FUZZ_OUT)/$$t.log | tr '\n' ' '; \
	    grep -Eo 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+/[0-9]+[a-zA-Z]*' $(FUZZ_OUT)/$$t.log | tail -1; \
	  else \
	    echo "fuzz $$t: FAILED, see $(FUZZ_OUT)/$$t.log"; grep -E 'ERROR|SUMMARY|property violated|panic:' \
	      $(FUZZ_OUT)/$$t.log | head -5; failed="$$failed $$t"; \
	  fi; \
	done; \
	if [ -x tools/rtapp ]; then \
	  echo "== fuzz rtapp (tools/rtapp JSON): $(FUZZ_SECONDS) s"; \
	  $(PYTHON) tests/fuzz/rtapp_fuzz.py --seconds $(FUZZ_SECONDS) --out $(FUZZ_OUT)/artifacts/rtapp \
	    || failed="$$failed rtapp"; \
	else echo "== fuzz rtapp: skipped (no tools/rtapp yet)"; fi; \
	crashes=$$(find $(FUZZ_OUT)/artifacts -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \
	  -o -name 'oom-*' -o -name 'slow-unit-*' -o -name 'rtapp-*' \) -newer mk/fuzz.mk 2>/dev/null | sort); \
	if [ -n "$$failed" ]; then \
	  echo "fuzz: failures in:$$failed"; [ -z "$$crashes" ] || echo "$$crashes" | sed 's/^/  /'; \
	  echo "fuzz: reproduce with build/fuzz/regress/<target> FILE; once fixed, add FILE to tests/fuzz/corpus/<target>/"; \
	  exit 1; \
	fi

fuzz-merge: fuzz-bins
	@set -e; for t in $(FUZZ_TARGETS); do \
	  [ -d $(FUZZ_OUT)/corpus/$$t ] || continue; \
	  echo "== merge $$t"; \
	  $(FUZZ_OUT)/libfuzzer/$$t -merge=1 $(FUZZ_CORPUS)/$$t $(FUZZ_OUT)/corpus/$$t 2>&1 | grep -E 'MERGE-OUTER: [0-9]+ new files' || true; \
	done

fuzz-regress: fuzz-regress-bins
	@set -e; for t in $(FUZZ_ALL); do \
	  printf '%-14s ' $$t; $(FUZZ_OUT)/regress/$$t $(FUZZ_CORPUS)/$$t 2>$(FUZZ_OUT)/regress/$$t.log || \
	  { echo "FAILED"; tail -30 $(FUZZ_OUT)/regress/$$t.log; exit 1; }; \
	done
	@if [ -x tools/rtapp ]; then $(PYTHON) tests/fuzz/rtapp_fuzz.py --regress; \
	else echo "rtapp          skipped (no tools/rtapp yet)"; fi

# ---------------------------------------------------------------- lint
CPPCHECK   ?= cppcheck
CLANG_TIDY ?= clang-tidy
ARM_SYSROOT_INC ?= /usr/lib/arm-none-eabi/include
LINT_HOST_SRCS := $(sort $(wildcard kernel/*.c tools/*.c tools/lib/*.c tests/fuzz/*.c))
LINT_ARM_SRCS  := $(sort $(wildcard boot/*.c drivers/*.c kernel/*.c))
LINT_HOST_DEFS := -Iinclude -I. -Itests/host -DCONFIG_NR_CPUS=1024 -DHOST_BUILD
LINT_ARM_DEFS  := -Iinclude -I. -DCONFIG_NR_CPUS=8 -DBOARD_NAME='"lint"' -DBOARD_EARLY_UART=0x1c090000
CPPCHECK_FLAGS := --enable=warning,style,performance,portability --error-exitcode=1 --inline-suppr \
	--std=c11 --quiet --template=gcc --suppressions-list=.cppcheck-suppressions
TIDY_ARM_FLAGS := --target=arm-none-eabi -mcpu=cortex-a15 -marm -mfpu=vfpv3-d16 -mfloat-abi=hard \
	-std=gnu11 -ffreestanding -isystem $(ARM_SYSROOT_INC) $(LINT_ARM_DEFS)
TIDY_HOST_FLAGS := -std=gnu11 $(LINT_HOST_DEFS)
LINT_JOBS ?= $(shell nproc 2>/dev/null || echo 2)

lint: lint-cppcheck lint-clang-tidy
	@echo "lint: no findings"

# Same way as the other optional tools (cf. `make experiment`): install if missing.
lint-deps:
	@for p in cppcheck:cppcheck clang-tidy:clang-tidy; do \
	  cmd=$${p%%:*}; pkg=$${p#*:}; command -v $$cmd >/dev/null && continue; \
	  echo "lint: installing missing Debian package: $$pkg"; \
	  if [ "$$(id -u)" -eq 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  $$SUDO apt-get install -y -q $$pkg || { $$SUDO apt-get update -q && $$SUDO apt-get install -y -q $$pkg; } || \
	  { echo "lint: could not install $$pkg" >&2; exit 1; }; \
	done

lint-cppcheck: lint-deps
	@echo "  CPPCHECK host (CONFIG_NR_CPUS=1024): kernel/ tools/ tests/fuzz/"
	@$(CPPCHECK) $(CPPCHECK_FLAGS) --platform=unix64 $(LINT_HOST_DEFS) -UCONFIG_SCHED_DEBUG \
	  $(LINT_HOST_SRCS)
	@echo "  CPPCHECK arm (CONFIG_NR_CPUS=8): boot/ drivers/ kernel/"
	@$(CPPCHECK) $(CPPCHECK_FLAGS) --platform=unix32 $(LINT_ARM_DEFS) -D__arm__ -D__ARM_ARCH_7A__ \
	  -UHOST_BUILD $(LINT_ARM_SRCS)

lint-clang-tidy: lint-deps
	@echo "  CLANG-TIDY host: kernel/ tools/ tests/fuzz/"
	@printf '%s\n' $(LINT_HOST_SRCS) | xargs -P $(LINT_JOBS) -n 4 sh -c \
	  '$(CLANG_TIDY) --quiet "$$@" -- $(TIDY_HOST_FLAGS) 2>&1 | grep -v "warnings generated" ; exit $${PIPESTATUS:-0}' sh \
	  >$(FUZZ_OUT)/tidy-host.log || true
	@echo "  CLANG-TIDY arm: boot/ drivers/ kernel/"
	@printf '%s\n' $(LINT_ARM_SRCS) | xargs -P $(LINT_JOBS) -n 4 sh -c \
	  '$(CLANG_TIDY) --quiet "$$@" -- $(TIDY_ARM_FLAGS) 2>&1 | grep -v "warnings generated"' sh \
	  >$(FUZZ_OUT)/tidy-arm.log || true
	@if grep -qE '(warning|error):' $(FUZZ_OUT)/tidy-host.log $(FUZZ_OUT)/tidy-arm.log; then \
	  cat $(FUZZ_OUT)/tidy-host.log $(FUZZ_OUT)/tidy-arm.log; \
	  echo "lint: clang-tidy findings above"; exit 1; fi
