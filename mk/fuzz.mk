# Fuzzing and static checks. Included at the end of the top Makefile, so
# WARN, HOST_CC, HOST_CFLAGS, SAN_FLAGS, CORE_SRCS, HDRS and PYTHON are set.
#
#   make fuzz [FUZZ_SECONDS=60] [FUZZ_TARGETS='fdt shell'] [FUZZ_ARGS=-jobs=2]
#       Each target runs FUZZ_SECONDS seconds: the C ones under libFuzzer
#       (clang, ASan + UBSan), starting from tests/fuzz/corpus/<target>
#       (seeds and regression inputs, only read); what they learn goes to
#       build/fuzz/corpus/<target>, crashes to build/fuzz/artifacts/<target>/,
#       the log to build/fuzz/<target>.log. Target `rtapp` is the Python
#       fuzzer of tools/rtapp (tests/fuzz/rtapp_fuzz.py), skipped while
#       tools/rtapp does not exist. Fails if anything crashed, naming the
#       inputs.
#   make fuzz-regress
#       every corpus input through each harness once, built with gcc +
#       ASan/UBSan and a plain main (tests/fuzz/regress_main.c): no clang
#       needed. `make test` runs the same (tests/qemu/test_fuzz_regress.py).
#   make fuzz-merge
#       fold build/fuzz/corpus/<target> into tests/fuzz/corpus/<target>,
#       keeping only inputs that add coverage (libFuzzer -merge=1).
#   make lint
#       cppcheck and clang-tidy (.clang-tidy) over boot/ drivers/ kernel/
#       tools/ tests/fuzz/, in the host configuration (CONFIG_NR_CPUS=1024)
#       and the ARM one (CONFIG_NR_CPUS=8, arm-none-eabi, newlib headers).
#       Any finding fails it; suppressions are inline and justified.
#
# C targets (tests/fuzz/fuzz_<name>.c): fdt, shell, cmdline, format, pelt, rtapp_prog,
# pelt_tool, schedtopo, and schedtopo_nr8 (fuzz_schedtopo.c built with the
# ARM kernel's CONFIG_NR_CPUS=8). Inputs that still crash, waiting for a
# fix, are kept in tests/fuzz/crashes/<target>/ (not run by the regression);
# once fixed, move them to tests/fuzz/corpus/<target>/.

# $(call apt_need,WHO,cmd:package ...): install each package whose command is
# missing, as `make experiment` does for its optional one.
apt_need = for p in $(2); do \
	  cmd=$${p%%:*}; pkg=$${p\#*:}; command -v $$cmd >/dev/null && continue; \
	  echo "$(1): installing missing Debian package: $$pkg"; \
	  if [ "$$(id -u)" -eq 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  $$SUDO apt-get install -y -q $$pkg || { $$SUDO apt-get update -q && $$SUDO apt-get install -y -q $$pkg; } || \
	    { echo "$(1): could not install $$pkg" >&2; exit 1; }; \
	done

.PHONY: fuzz-deps fuzz fuzz-bins fuzz-regress fuzz-regress-bins fuzz-merge lint lint-deps \
	lint-cppcheck lint-clang-tidy

FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_C       := fdt shell cmdline format pelt pelt_tool schedtopo schedtopo_nr8 rtapp_prog
FUZZ_TARGETS ?= $(FUZZ_C) rtapp
FUZZ_ARGS    ?=
FUZZ_OUT     := build/fuzz
FUZZ_CORPUS  := tests/fuzz/corpus

# Harness source and CONFIG_NR_CPUS of a C target.
fuzz_src = tests/fuzz/fuzz_$(patsubst %_nr8,%,$(1)).c
fuzz_nr  = $(if $(filter %_nr8,$(1)),8,1024)
# libFuzzer options per target: DTBs need room (a 33-CPU tree is ~6 KiB).
FUZZ_OPTS_fdt           := -max_len=16384 -dict=tests/fuzz/fdt.dict
FUZZ_OPTS_schedtopo     := -max_len=16384 -dict=tests/fuzz/fdt.dict
FUZZ_OPTS_schedtopo_nr8 := -max_len=16384 -dict=tests/fuzz/fdt.dict
FUZZ_OPTS_rtapp_prog    := -max_len=16384 -dict=tests/fuzz/rtapp_prog.dict
FUZZ_OPTS_shell         := -dict=tests/fuzz/shell.dict
FUZZ_OPTS_cmdline       := -dict=tests/fuzz/shell.dict
FUZZ_OPTS_format        := -dict=tests/fuzz/format.dict
FUZZ_OPTS_pelt_tool     := -dict=tests/fuzz/pelt_tool.dict

FUZZ_HDRS := $(HDRS) tests/fuzz/fuzz.h tests/fuzz/fdt_ref.h $(wildcard tools/*.c)
# fdt is compared with libfdt (libfdt-dev, tests/fuzz/fdt_ref.c). libfdt's
# function names are ours too (fdt_getprop, fdt_next_node, ...), and a program
# holding both would bind libfdt's internal calls to ours: link a copy of
# libfdt.a whose every fdt_* symbol is renamed ref_fdt_* instead, and compile
# fdt_ref.c with the same renaming (rename.h, generated from the same list).
LIBFDT_A     := $(shell $(HOST_CC) -print-file-name=libfdt.a)
FUZZ_REF_DIR := $(FUZZ_OUT)/libfdt-ref
$(FUZZ_REF_DIR)/libfdt-ref.a $(FUZZ_REF_DIR)/rename.h &: $(LIBFDT_A)
	@mkdir -p $(FUZZ_REF_DIR)
	@test -f $(LIBFDT_A) || { echo "fuzz: libfdt.a missing: apt-get install libfdt-dev (tools/ensure-deps.sh)" >&2; exit 1; }
	nm -g --defined-only $(LIBFDT_A) | awk 'NF == 3 && $$3 ~ /^fdt_/ { print $$3, "ref_" $$3 }' | sort -u \
	  > $(FUZZ_REF_DIR)/syms
	objcopy --redefine-syms=$(FUZZ_REF_DIR)/syms $(LIBFDT_A) $(FUZZ_REF_DIR)/libfdt-ref.a
	awk '{ print "#define", $$1, $$2 }' $(FUZZ_REF_DIR)/syms > $(FUZZ_REF_DIR)/rename.h
$(FUZZ_OUT)/regress/fdt_ref.o: tests/fuzz/fdt_ref.c tests/fuzz/fdt_ref.h $(FUZZ_REF_DIR)/rename.h
	@mkdir -p $(@D)
	$(HOST_CC) $(FUZZ_GCC_CFLAGS) -include $(FUZZ_REF_DIR)/rename.h -c -o $@ $<
$(FUZZ_OUT)/libfuzzer/fdt_ref.o: tests/fuzz/fdt_ref.c tests/fuzz/fdt_ref.h $(FUZZ_REF_DIR)/rename.h | fuzz-deps
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=address,undefined -include $(FUZZ_REF_DIR)/rename.h -c -o $@ $<
FUZZ_LINK_regress_fdt   := $(FUZZ_OUT)/regress/fdt_ref.o $(FUZZ_REF_DIR)/libfdt-ref.a
FUZZ_LINK_libfuzzer_fdt := $(FUZZ_OUT)/libfuzzer/fdt_ref.o $(FUZZ_REF_DIR)/libfdt-ref.a

# ------------------------------------------------- libFuzzer builds (clang)
# The kernel core with coverage + ASan + UBSan, once per CONFIG_NR_CPUS.
FUZZ_CFLAGS := -O1 -g -std=gnu11 -Wall -Wextra -Iinclude -I. -Itests/host -DHOST_BUILD \
	-fno-omit-frame-pointer -fno-sanitize-recover=undefined
# gcc -Werror is the kernel's warning gate; clang's extra opinions on code
# others own are for `make lint`, not for the fuzz build.
FUZZ_CORE_QUIET := -Wno-unused-but-set-variable

define fuzz_core_rules
$(FUZZ_OUT)/clang-$(1)/%.o: %.c $(HDRS) | fuzz-deps
	@mkdir -p $$(@D)
	@echo "  FUZZCC $(1) $$<"
	@$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_CORE_QUIET) -DCONFIG_NR_CPUS=$(1) \
	  -fsanitize=fuzzer-no-link,address,undefined -c -o $$@ $$<
$(FUZZ_OUT)/clang-$(1)/libkcore.a: $(patsubst %.c,$(FUZZ_OUT)/clang-$(1)/%.o,$(CORE_SRCS))
	@rm -f $$@; ar rcs $$@ $$^
endef
$(foreach n,8 1024,$(eval $(call fuzz_core_rules,$(n))))

# ------------------------------------------------- regression builds (gcc)
# The kernel core with ASan + UBSan: NR_CPUS=1024 is the host tests'
# build/host/libkcore-san.a; NR_CPUS=8 is built here.
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
$(FUZZ_OUT)/libfuzzer/$(1): $(call fuzz_src,$(1)) $(FUZZ_OUT)/clang-$(call fuzz_nr,$(1))/libkcore.a $(FUZZ_HDRS) \
		$(FUZZ_LINK_libfuzzer_$(1)) | fuzz-deps
	@mkdir -p $$(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Werror -DCONFIG_NR_CPUS=$(call fuzz_nr,$(1)) \
	  -fsanitize=fuzzer,address,undefined -o $$@ $$< $(FUZZ_LINK_libfuzzer_$(1)) \
	  $(call WHOLE,$(FUZZ_OUT)/clang-$(call fuzz_nr,$(1))/libkcore.a) -lm
$(FUZZ_OUT)/regress/$(1).o: $(call fuzz_src,$(1)) $(FUZZ_HDRS)
	@mkdir -p $$(@D)
	$(HOST_CC) $(FUZZ_GCC_CFLAGS) -DCONFIG_NR_CPUS=$(call fuzz_nr,$(1)) -c -o $$@ $$<
$(FUZZ_OUT)/regress/$(1): $(FUZZ_OUT)/regress/$(1).o $(FUZZ_OUT)/regress/regress_main.o $(call fuzz_gcc_lib,$(1)) \
		$(FUZZ_LINK_regress_$(1))
	$(HOST_CC) $(SAN_FLAGS) -o $$@ $$< $(FUZZ_OUT)/regress/regress_main.o \
	  $(call WHOLE,$(call fuzz_gcc_lib,$(1))) $(FUZZ_LINK_regress_$(1)) -lm -lpthread
endef
$(foreach t,$(FUZZ_C),$(eval $(call fuzz_target_rules,$(t))))

FUZZ_BINS    := $(addprefix $(FUZZ_OUT)/libfuzzer/,$(filter $(FUZZ_C),$(FUZZ_TARGETS)))
REGRESS_BINS := $(addprefix $(FUZZ_OUT)/regress/,$(FUZZ_C))

fuzz-bins: $(FUZZ_BINS)
fuzz-regress-bins: $(REGRESS_BINS)
# `make test` runs the corpus (tests/qemu/test_fuzz_regress.py): build it first.
test: fuzz-regress-bins

# clang (libFuzzer) and llvm (llvm-symbolizer, for readable reports), installed
# if missing like the lint tools below.
fuzz-deps:
	@$(call apt_need,fuzz,$(FUZZ_CC):clang llvm-symbolizer:llvm)

# ------------------------------------------------- running
fuzz: fuzz-bins
	@set -u; mkdir -p $(FUZZ_OUT); touch $(FUZZ_OUT)/.fuzz-start; failed=; \
	for t in $(FUZZ_TARGETS); do \
	  if [ $$t = rtapp ]; then \
	    if [ ! -e tools/rtapp ]; then echo "== fuzz rtapp: skipped (no tools/rtapp)"; continue; fi; \
	    echo "== fuzz rtapp (tools/rtapp, Python): $(FUZZ_SECONDS) s"; \
	    $(PYTHON) tests/fuzz/rtapp_fuzz.py --seconds $(FUZZ_SECONDS) --out $(FUZZ_OUT)/artifacts/rtapp \
	      || failed="$$failed rtapp"; \
	    continue; \
	  fi; \
	  mkdir -p $(FUZZ_OUT)/corpus/$$t $(FUZZ_OUT)/artifacts/$$t; \
	  echo "== fuzz $$t: $(FUZZ_SECONDS) s (log: $(FUZZ_OUT)/$$t.log)"; \
	  case $$t in \
	    fdt) opts="$(FUZZ_OPTS_fdt)";; schedtopo) opts="$(FUZZ_OPTS_schedtopo)";; \
	    schedtopo_nr8) opts="$(FUZZ_OPTS_schedtopo_nr8)";; shell) opts="$(FUZZ_OPTS_shell)";; \
	    cmdline) opts="$(FUZZ_OPTS_cmdline)";; format) opts="$(FUZZ_OPTS_format)";; \
	    pelt_tool) opts="$(FUZZ_OPTS_pelt_tool)";; *) opts=;; \
	  esac; \
	  if ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	     $(FUZZ_OUT)/libfuzzer/$$t -max_total_time=$(FUZZ_SECONDS) -timeout=20 -rss_limit_mb=2048 \
	       -print_final_stats=1 -artifact_prefix=$(FUZZ_OUT)/artifacts/$$t/ $$opts $(FUZZ_ARGS) \
	       $(FUZZ_OUT)/corpus/$$t $(FUZZ_CORPUS)/$$t >$(FUZZ_OUT)/$$t.log 2>&1; then \
	    printf '   %s execs, %s/s; ' \
	      "$$(sed -n 's/^stat::number_of_executed_units: *//p' $(FUZZ_OUT)/$$t.log)" \
	      "$$(sed -n 's/^stat::average_exec_per_sec: *//p' $(FUZZ_OUT)/$$t.log)"; \
	    grep -Eo 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+/[0-9]+[a-zA-Z]*' $(FUZZ_OUT)/$$t.log | tail -1; \
	  else \
	    echo "   FAILED:"; grep -E 'ERROR: |SUMMARY: |property violated|panic: |runtime error' \
	      $(FUZZ_OUT)/$$t.log | head -5 | sed 's/^/   /'; failed="$$failed $$t"; \
	  fi; \
	done; \
	if [ -n "$$failed" ]; then \
	  echo "fuzz: failures in:$$failed"; \
	  find $(FUZZ_OUT)/artifacts -type f -newer $(FUZZ_OUT)/.fuzz-start | sort | sed 's/^/  /'; \
	  echo "fuzz: reproduce with build/fuzz/regress/<target> FILE (rtapp: tests/fuzz/rtapp_fuzz.py --regress FILE);"; \
	  echo "      keep FILE in tests/fuzz/crashes/<target>/ until fixed, then in tests/fuzz/corpus/<target>/"; \
	  exit 1; \
	fi

fuzz-merge: fuzz-bins
	@set -e; for t in $(filter $(FUZZ_C),$(FUZZ_TARGETS)); do \
	  [ -d $(FUZZ_OUT)/corpus/$$t ] || continue; \
	  printf '== merge %s: ' $$t; \
	  $(FUZZ_OUT)/libfuzzer/$$t -merge=1 $(FUZZ_CORPUS)/$$t $(FUZZ_OUT)/corpus/$$t 2>&1 | \
	    sed -n 's/.*MERGE-OUTER: \([0-9]*\) new files.*/\1 new files/p'; \
	done

fuzz-regress: fuzz-regress-bins
	@set -e; for t in $(FUZZ_C); do \
	  printf '%-14s ' $$t; $(FUZZ_OUT)/regress/$$t $(FUZZ_CORPUS)/$$t 2>$(FUZZ_OUT)/regress/$$t.log || \
	  { echo "FAILED"; tail -30 $(FUZZ_OUT)/regress/$$t.log; exit 1; }; \
	done
	@if [ -e tools/rtapp ]; then printf '%-14s ' rtapp; $(PYTHON) tests/fuzz/rtapp_fuzz.py --regress; \
	else echo "rtapp          skipped (no tools/rtapp)"; fi

# ---------------------------------------------------------------- lint
CPPCHECK   ?= cppcheck
CLANG_TIDY ?= clang-tidy
ARM_SYSROOT_INC ?= /usr/lib/arm-none-eabi/include
LINT_JOBS  ?= $(shell nproc 2>/dev/null || echo 2)
LINT_HOST_SRCS := $(sort $(wildcard kernel/*/*.c tools/*.c tools/ports/*/*.c tools/schedsim/*.c tests/fuzz/*.c) $(HOST_DRIVER_SRCS))
LINT_ARM_SRCS  := $(sort $(wildcard boot/*.c drivers/*.c kernel/*/*.c))
LINT_HOST_DEFS := -Iinclude -I. -Itests/host -DCONFIG_NR_CPUS=1024 -DHOST_BUILD
LINT_ARM_DEFS  := -Iinclude -I. -DCONFIG_NR_CPUS=8 -DBOARD_NAME='"lint"' -DBOARD_EARLY_UART=0x1c090000
CPPCHECK_FLAGS := --enable=warning,style,performance,portability --error-exitcode=1 --inline-suppr \
	--std=c11 --quiet --template='{file}:{line}:{column}: {severity}: {message} [{id}]' --suppressions-list=.cppcheck-suppressions
TIDY_HOST_FLAGS := -std=gnu11 $(LINT_HOST_DEFS)
TIDY_ARM_FLAGS  := --target=arm-none-eabi -mcpu=cortex-a15 -marm -mfpu=vfpv3-d16 -mfloat-abi=hard \
	-std=gnu11 -ffreestanding -isystem $(ARM_SYSROOT_INC) $(LINT_ARM_DEFS)

# Every check runs (and reports) even when an earlier one has findings.
lint: lint-deps
	@rc=0; $(MAKE) --no-print-directory lint-cppcheck || rc=1; \
	$(MAKE) --no-print-directory lint-clang-tidy || rc=1; \
	if [ $$rc = 0 ]; then echo "lint: no findings"; else echo "lint: FAILED (findings above)"; fi; exit $$rc

lint-deps:
	@$(call apt_need,lint,$(CPPCHECK):cppcheck $(CLANG_TIDY):clang-tidy)

lint-cppcheck: lint-deps
	@rc=0; echo "  CPPCHECK   host (CONFIG_NR_CPUS=1024): kernel/ tools/ tests/fuzz/"; \
	$(CPPCHECK) $(CPPCHECK_FLAGS) --platform=unix64 $(LINT_HOST_DEFS) $(LINT_HOST_SRCS) || rc=1; \
	echo "  CPPCHECK   arm (CONFIG_NR_CPUS=8): boot/ drivers/ kernel/"; \
	$(CPPCHECK) $(CPPCHECK_FLAGS) --platform=unix32 $(LINT_ARM_DEFS) -D__arm__ -D__ARM_ARCH_7A__ \
	  -UHOST_BUILD $(LINT_ARM_SRCS) || rc=1; \
	exit $$rc

# One clang-tidy per file, LINT_JOBS at once; the report lists every finding.
lint-clang-tidy: lint-deps
	@mkdir -p $(FUZZ_OUT)
	@echo "  CLANG-TIDY host (CONFIG_NR_CPUS=1024): kernel/ tools/ tests/fuzz/"
	@printf '%s\n' $(LINT_HOST_SRCS) | xargs -P $(LINT_JOBS) -I{} \
	  $(CLANG_TIDY) --quiet {} -- $(TIDY_HOST_FLAGS) >$(FUZZ_OUT)/tidy-host.log 2>&1 || true
	@echo "  CLANG-TIDY arm (CONFIG_NR_CPUS=8, arm-none-eabi): boot/ drivers/ kernel/"
	@printf '%s\n' $(LINT_ARM_SRCS) | xargs -P $(LINT_JOBS) -I{} \
	  $(CLANG_TIDY) --quiet {} -- $(TIDY_ARM_FLAGS) >$(FUZZ_OUT)/tidy-arm.log 2>&1 || true
	@if grep -qE ': (warning|error): ' $(FUZZ_OUT)/tidy-host.log $(FUZZ_OUT)/tidy-arm.log; then \
	  grep -hE ': (warning|error): ' $(FUZZ_OUT)/tidy-host.log $(FUZZ_OUT)/tidy-arm.log | sort -u; \
	  echo "lint: clang-tidy findings above (full reports: $(FUZZ_OUT)/tidy-host.log, $(FUZZ_OUT)/tidy-arm.log)"; \
	  exit 1; \
	fi
