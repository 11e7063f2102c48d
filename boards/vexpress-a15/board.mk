# QEMU vexpress-a15 (RS1 map) with a TC2-style 2+2 topology in its DT.
BOARD_CPU        := cortex-a15
BOARD_LDS        := linker/vexpress-rs1.ld
BOARD_EARLY_UART := 0x1c090000
QEMU_MACHINE     := vexpress-a15
QEMU_CPU         :=
QEMU_SMP         := 4
QEMU_MEM         := 256M
QEMU_EXTRA       :=
SERIAL_BAUD      := 38400
