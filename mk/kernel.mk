# Builds the ARM kernel for one board: invoked by the top Makefile as
#   make -f mk/kernel.mk BOARD=<board>
# so that boards/<board>/board.mk settings apply to this board only.
include boards/$(BOARD)/board.mk

CROSS   ?= arm-none-eabi-
CC      := $(CROSS)gcc
OBJCOPY := $(CROSS)objcopy
SIZE    := $(CROSS)size
# OUT: where the objects and images go (tests build variants elsewhere).
OUT     ?= build/$(BOARD)$(if $(filter 1,$(DEBUG)),-debug)

WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
# No frame pointers (they cost ~5% of a context switch): backtraces unwind
# with the EHABI tables -funwind-tables emits (boot/backtrace.c).
# Link-time optimisation: the scheduler's hot paths cross files (clock read,
# timer heap, rq, CFS, PELT); inlining across them cuts a context switch by
# 13% and a local wake-up by 4-7% (QEMU boards, instructions). The link gets
# the same CFLAGS.
# One partition: every inlining decision sees the whole kernel, so the hot
# paths' instruction counts do not move when unrelated code changes how
# -flto=auto would cut the partitions.
# Fat objects also hold plain code, so one file's size can still be read.
CFLAGS := -mcpu=$(BOARD_CPU) -marm -mfpu=vfpv3-d16 -mfloat-abi=hard \
	-O2 -flto=auto -flto-partition=one -ffat-lto-objects -g -std=gnu11 $(WARN) -fno-common -ffunction-sections -fdata-sections \
	-fomit-frame-pointer -funwind-tables -Iinclude -I. -DCONFIG_NR_CPUS=8 \
	-DBOARD_NAME='"$(BOARD)"' -DBOARD_EARLY_UART=$(BOARD_EARLY_UART) \
	$(if $(BOARD_EARLY_SYSREG),-DBOARD_EARLY_SYSREG=$(BOARD_EARLY_SYSREG)) \
	$(if $(filter hvc,$(BOARD_EARLY_PSCI)),-DBOARD_EARLY_PSCI_HVC)
# Per-board tuning (board.mk); EXTRA_CFLAGS for experiments from the command line.
CFLAGS += $(BOARD_CFLAGS) $(EXTRA_CFLAGS)
ifeq ($(DEBUG),1)
CFLAGS += -DCONFIG_SCHED_DEBUG
endif
ASFLAGS := $(CFLAGS) -D__ASSEMBLY__
LDFLAGS := -nostartfiles --specs=nano.specs -T $(BOARD_LDS) -Wl,--gc-sections \
	-Wl,-Map=$(OUT)/kernel.map -Wl,--no-warn-rwx-segments

SRCS := $(sort $(wildcard boot/*.S boot/*.c drivers/*.c kernel/*/*.c))
OBJS := $(patsubst %,$(OUT)/obj/%.o,$(SRCS))
DEPS := $(OBJS:.o=.d)

all: $(OUT)/kernel.bin

$(OUT)/obj/%.c.o: %.c
	@mkdir -p $(@D)
	@echo "  CC    $(BOARD) $<"
	@$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<
$(OUT)/obj/%.S.o: %.S
	@mkdir -p $(@D)
	@echo "  AS    $(BOARD) $<"
	@$(CC) $(ASFLAGS) -MMD -MP -c -o $@ $<

$(OUT)/kernel.elf: $(OBJS) $(BOARD_LDS) linker/common.ld
	@echo "  LD    $@"
	@$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(OBJS) -lm -lc -lgcc
$(OUT)/kernel.bin: $(OUT)/kernel.elf
	@$(OBJCOPY) -O binary $< $@
	@$(SIZE) $< | tail -1 | awk '{printf "  SIZE  $(BOARD): text %d data %d bss %d\n", $$1, $$2, $$3}'

# Flags live here: a change to them rebuilds every object.
$(OBJS): mk/kernel.mk

-include $(DEPS)
