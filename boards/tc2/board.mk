# Real Versatile Express TC2 (V2P-CA15_A7, HBI0249): 2 A15 + 3 A7.
# Not bootable in QEMU (vexpress-a15 has at most 4 CPUs and no A7 cluster).
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
QEMU_MACHINE     :=
SERIAL_BAUD      := 38400
