# `make bench`: the kernel's own costs, in QEMU icount mode and on the host,
# written to bench/results.md by tools/bench (see its --help). Included at
# the end of the top Makefile, whose variables (HOST_CC, HOST_CFLAGS, HDRS,
# PYTHON) it uses.
#
# Host benchmark programs: tools/bench-host/<name>.c -> build/host/bench/<name>,
# linked with build/host/libkcore.a (kernel/*/*.c compiled natively). They are
# built by the rules here only: the top Makefile's tools/*.c rule does not
# see them (not in tools/), and the static pattern rules below take
# precedence over its build/host/% pattern rule. They include
# <valgrind/callgrind.h> (Debian package valgrind), checked first.

BENCH_HOST_SRCS := $(sort $(wildcard tools/bench-host/*.c))
BENCH_HOST_BINS := $(patsubst tools/bench-host/%.c,build/host/bench/%,$(BENCH_HOST_SRCS))
BENCH_HOST_OBJS := $(patsubst tools/bench-host/%.c,build/host/bench/obj/%.o,$(BENCH_HOST_SRCS))

.PHONY: bench bench-host bench-deps

# valgrind (callgrind and its client-request header), installed if missing.
bench-deps:
	@tools/ensure-deps.sh valgrind

$(BENCH_HOST_OBJS): build/host/bench/obj/%.o: tools/bench-host/%.c $(HDRS) | bench-deps
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) -c -o $@ $<

$(BENCH_HOST_BINS): build/host/bench/%: build/host/bench/obj/%.o build/host/libkcore.a
	$(HOST_CC) -o $@ $< $(call WHOLE,build/host/libkcore.a) -lm

bench-host: $(BENCH_HOST_BINS)

# Every board is built for the size table; two are run (vexpress-a9, qemu-tc2).
bench: deps boards bench-host build/host/schedsim
	@$(PYTHON) tools/bench
