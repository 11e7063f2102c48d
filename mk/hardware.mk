# Real-board targets (docs/hardware.md), included at the end of the top Makefile.
#
#   make BOARD=vexpress-a9|tc2 flash [MEDIA=/media/$USER/VEMSD] [BOOTARGS='...']
#        [NOR_IMAGE=0x...] [NOR_DTB=0x...] [BOOT_A15=1]
#       with MEDIA: lay the kernel out on the mounted VEMSD (tools/vemsd flash);
#       without: a staging folder build/<board>/vemsd/ (tools/vemsd stage)
#   make BOARD=... uimage        build/<board>/uImage for U-Boot bootm (mkimage)
#   make BOARD=... debug [JTAG=interface.cfg] [GDB_ARGS='-batch -x f.gdb']
#       with JTAG (an OpenOCD adapter config, e.g. interface/ftdi/olimex-arm-usb-ocd-h.cfg):
#       OpenOCD with boards/<board>/openocd.cfg and gdb-multiarch on the board;
#       without, on a QEMU board: QEMU paused at reset (gdbstub, -S) and gdb-multiarch
#       attached; the console goes to DEBUG_SERIAL (default: a TCP port, CONSOLE_PORT)
#   make BOARD=... load JTAG=interface.cfg
#       halt the board over JTAG, load kernel.elf and the DTB into RAM, run it
#   make BOARD=... openocd-check  parse boards/<board>/openocd.cfg (no adapter needed)
#   make hardware-deps           install openocd, gdb-multiarch and u-boot-tools
#
# Uses BOARD, PYTHON and the kernel-<board> rules of the top Makefile.

HW_BOARDS    := vexpress-a9 tc2
HW_OUT       := build/$(BOARD)
HW_ELF       := $(HW_OUT)/kernel.elf
HW_BIN       := $(HW_OUT)/kernel.bin
HW_DTB       := $(HW_OUT)/$(BOARD).dtb
HW_OCD_CFG   := boards/$(BOARD)/openocd.cfg
GDB          ?= gdb-multiarch
OPENOCD      ?= openocd
MKIMAGE      ?= mkimage
GDB_PORT     ?= 1234
HW_GDB_PORT  ?= 3333
CONSOLE_PORT ?= 5555
DEBUG_SERIAL ?= tcp:127.0.0.1:$(CONSOLE_PORT),server=on,wait=off
DEBUG_ICOUNT ?= 1
GDB_ARGS     ?=
OPENOCD_ARGS ?=
OPENOCD_LOG  ?= $(HW_OUT)/openocd.log
JTAG         ?=

.PHONY: flash uimage debug load openocd-check hardware-deps

# Install a Debian package when its command is missing (the same way as
# tools/ensure-deps.sh, which only knows the build's own packages).
# $(1) = command, $(2) = package.
define hw_need
	@command -v $(1) >/dev/null 2>&1 || { \
	  echo "hardware.mk: $(1) not found: installing the Debian package $(2)"; \
	  if [ "$$(id -u)" -eq 0 ]; then SUDO=; elif command -v sudo >/dev/null 2>&1; then SUDO=sudo; \
	  else echo "hardware.mk: not root and no sudo: install $(2) by hand (apt-get install $(2))" >&2; exit 1; fi; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  $$SUDO apt-get install -y -q $(2) || { $$SUDO apt-get update -q && $$SUDO apt-get install -y -q $(2); } || \
	  { echo "hardware.mk: could not install $(2); install it by hand (Debian/Ubuntu: apt-get install $(2))" >&2; exit 1; }; \
	  command -v $(1) >/dev/null 2>&1 || { echo "hardware.mk: $(2) is installed but $(1) is still missing" >&2; exit 1; }; }
endef

hw_is_qemu = $(filter $(BOARD),$(QEMU_BOARDS))
hw_is_hw   = $(filter $(BOARD),$(HW_BOARDS))

hardware-deps:
	$(call hw_need,$(OPENOCD),openocd)
	$(call hw_need,$(GDB),gdb-multiarch)
	$(call hw_need,$(MKIMAGE),u-boot-tools)

# ---------------------------------------------------------------- VEMSD media
ifeq ($(hw_is_hw),)
flash:
	@echo "flash: BOARD=$(BOARD) is not a Versatile Express board; use BOARD=vexpress-a9 (CoreTile A9x4)" \
	  "or BOARD=tc2" >&2; exit 2
else
flash: deps kernel-$(BOARD)
ifeq ($(strip $(MEDIA)),)
	@$(PYTHON) tools/vemsd stage --board $(BOARD) --out $(HW_OUT)/vemsd \
		$(if $(BOOTARGS),--bootargs '$(BOOTARGS)') $(if $(NOR_IMAGE),--nor-image $(NOR_IMAGE)) \
		$(if $(NOR_DTB),--nor-dtb $(NOR_DTB))
else
	@$(PYTHON) tools/vemsd flash --board $(BOARD) --media '$(MEDIA)' \
		$(if $(BOOTARGS),--bootargs '$(BOOTARGS)') $(if $(NOR_IMAGE),--nor-image $(NOR_IMAGE)) \
		$(if $(NOR_DTB),--nor-dtb $(NOR_DTB)) $(if $(BOOT_A15),--boot-a15)
endif
endif

# ---------------------------------------------------------------- U-Boot uImage
# Load address = entry = the address kernel.bin is linked at (RAM base + 0x10000),
# read from its zImage header (word at 0x28).
HW_UIMAGE ?= $(HW_OUT)/uImage
uimage: $(HW_UIMAGE)

$(HW_UIMAGE): $(HW_BIN)
	$(call hw_need,$(MKIMAGE),u-boot-tools)
	@mkdir -p $(@D); load=0x$$(od -An -tx4 -j40 -N4 $< | tr -d ' \n'); \
	magic=$$(od -An -tx4 -j36 -N4 $< | tr -d ' \n'); \
	[ "$$magic" = 016f2818 ] || { echo "uimage: $< has no zImage header" >&2; exit 1; }; \
	$(MKIMAGE) -A arm -O linux -T kernel -C none -a $$load -e $$load \
		-n "sched-pack $(BOARD)" -d $< $@ >/dev/null && \
	echo "  UIMAGE $@ (load = entry = $$load; U-Boot: bootm <addr> - <dtb addr>)"

# ---------------------------------------------------------------- JTAG / gdb
# The QEMU command for `debug`: tools/qemu-run's qemu_command() with the
# serial port moved off stdin/stdout (gdb owns the terminal) and the gdbstub
# on GDB_PORT, paused at reset.
HW_QEMU_DEBUG_CMD = $(PYTHON) -c 'import importlib.machinery as M, importlib.util as U, shlex, sys; \
L = M.SourceFileLoader("qemu_run", "tools/qemu-run"); m = U.module_from_spec(U.spec_from_loader("qemu_run", L)); \
L.exec_module(m); b, ser, port, ic = sys.argv[1:5]; c = m.qemu_command(b, icount=ic == "1"); \
c[c.index("-serial") + 1] = ser; c += ["-gdb", "tcp:127.0.0.1:" + port, "-S"]; print(shlex.join(c))' \
	'$(BOARD)' '$(DEBUG_SERIAL)' '$(GDB_PORT)' '$(DEBUG_ICOUNT)'

define hw_need_jtag
	@[ -n "$(JTAG)" ] || { echo "$(1): give the OpenOCD config of your JTAG adapter, e.g." \
	  "make BOARD=$(BOARD) $(1) JTAG=interface/ftdi/olimex-arm-usb-ocd-h.cfg (docs/hardware.md)" >&2; exit 2; }
	@[ -f $(HW_OCD_CFG) ] || { echo "$(1): BOARD=$(BOARD) has no $(HW_OCD_CFG) (JTAG boards: $(HW_BOARDS))" >&2; exit 2; }
	$(call hw_need,$(OPENOCD),openocd)
endef

ifeq ($(strip $(JTAG))$(hw_is_qemu),)
debug:
	@echo "debug: BOARD=$(BOARD) does not run in QEMU; give JTAG=<OpenOCD adapter config> to debug the board" >&2; exit 2
else ifneq ($(strip $(JTAG)),$(if $(wildcard $(HW_OCD_CFG)),$(strip $(JTAG))))
debug:
	@echo "debug: BOARD=$(BOARD) has no $(HW_OCD_CFG) (JTAG boards: $(HW_BOARDS))" >&2; exit 2
else
debug: deps kernel-$(BOARD)
	$(call hw_need,$(GDB),gdb-multiarch)
ifneq ($(strip $(JTAG)),)
	$(call hw_need_jtag,debug)
	@echo "debug: OpenOCD $(JTAG) + $(HW_OCD_CFG) (log: $(OPENOCD_LOG)); gdb on localhost:$(HW_GDB_PORT)"
	@$(OPENOCD) -l $(OPENOCD_LOG) -f '$(JTAG)' -f $(HW_OCD_CFG) $(OPENOCD_ARGS) & ocd=$$!; \
	trap 'kill $$ocd 2>/dev/null; wait $$ocd 2>/dev/null' EXIT INT TERM; \
	$(GDB) -q -nx -ex 'set confirm off' -ex 'set tcp connect-timeout 10' \
		-ex 'target extended-remote localhost:$(HW_GDB_PORT)' $(GDB_ARGS) $(HW_ELF)
else
	@cmd=$$($(HW_QEMU_DEBUG_CMD)) || exit 1; \
	echo "debug: $$cmd"; \
	case '$(DEBUG_SERIAL)' in tcp:*) echo "debug: the console is on $(DEBUG_SERIAL): telnet localhost $(CONSOLE_PORT)";; \
	  *) echo "debug: the console is on $(DEBUG_SERIAL)";; esac; \
	QEMU_AUDIO_DRV=none; export QEMU_AUDIO_DRV; \
	eval "exec $$cmd" </dev/null & qemu=$$!; \
	trap 'kill $$qemu 2>/dev/null; wait $$qemu 2>/dev/null' EXIT INT TERM; \
	$(GDB) -q -nx -ex 'set confirm off' -ex 'set tcp connect-timeout 10' \
		-ex 'target remote localhost:$(GDB_PORT)' $(GDB_ARGS) $(HW_ELF)
endif
endif

ifeq ($(strip $(JTAG)),)
load:
	@echo "load: loads the kernel into a real board's RAM over JTAG: give JTAG=<OpenOCD adapter config>" \
	  "(docs/hardware.md)$(if $(hw_is_qemu),; in QEMU use make run or make debug)" >&2; exit 2
else ifeq ($(wildcard $(HW_OCD_CFG)),)
load:
	@echo "load: BOARD=$(BOARD) has no $(HW_OCD_CFG) (JTAG boards: $(HW_BOARDS))" >&2; exit 2
else
load: deps kernel-$(BOARD)
	$(call hw_need_jtag,load)
	$(OPENOCD) -f '$(JTAG)' -f $(HW_OCD_CFG) $(OPENOCD_ARGS) -c init -c 'spk_load $(HW_ELF) $(HW_DTB)' -c shutdown
endif

openocd-check:
	@[ -f $(HW_OCD_CFG) ] || { echo "openocd-check: BOARD=$(BOARD) has no $(HW_OCD_CFG)" >&2; exit 2; }
	$(call hw_need,$(OPENOCD),openocd)
	$(OPENOCD) -c 'adapter driver dummy' -f $(HW_OCD_CFG) -c shutdown
