# QEMU vexpress-a15 (RS1 map) with a TC2-style 2+2 topology in its DT.
BOARD_CPU        := cortex-a15
# One image runs on both clusters, and packing puts the small tasks (and so
# most scheduler work) on the in-order A7s: tune for the A7. -mcpu's A15
# tuning trades instructions for dual issue (strd pairs, not push/pop):
# +17% instructions on a context switch (bench/results.md).
BOARD_CFLAGS     := -mtune=cortex-a7
BOARD_LDS        := linker/vexpress-rs1.ld
BOARD_EARLY_UART := 0x1c090000
# Sysregs for a panic's power-off when the DT's are unusable (panic=poweroff).
BOARD_EARLY_SYSREG := 0x1c010000
QEMU_MACHINE     := vexpress-a15
QEMU_CPU         :=
QEMU_SMP         := 4
QEMU_MEM         := 256M
QEMU_EXTRA       :=
SERIAL_BAUD      := 38400
