# QEMU virt, 5 x Cortex-A15 vCPUs described as TC2 (2 A15 + 3 A7), PSCI.
BOARD_CPU        := cortex-a15
# One image runs on both clusters, and packing puts the small tasks (and so
# most scheduler work) on the in-order A7s: tune for the A7. -mcpu's A15
# tuning trades instructions for dual issue (strd pairs, not push/pop):
# +17% instructions on a context switch (bench/results.md).
BOARD_CFLAGS     := -mtune=cortex-a7
BOARD_LDS        := linker/virt.ld
BOARD_EARLY_UART := 0x09000000
# PSCI conduit for a panic's power-off when the DT's psci node is unusable (panic=poweroff).
BOARD_EARLY_PSCI := hvc
QEMU_MACHINE     := virt,highmem=off
QEMU_CPU         := cortex-a15
QEMU_SMP         := 5
QEMU_MEM         := 256M
QEMU_EXTRA       :=
SERIAL_BAUD      := 115200
