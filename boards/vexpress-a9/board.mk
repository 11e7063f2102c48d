# CoreTile A9x4 on V2M-P1 (legacy map); QEMU vexpress-a9.
BOARD_CPU        := cortex-a9
BOARD_LDS        := linker/vexpress-legacy.ld
# Early console before the DT is read (panics about a bad DTB need it).
BOARD_EARLY_UART := 0x10009000
# Sysregs for a panic's power-off when the DT's are unusable (panic=poweroff).
BOARD_EARLY_SYSREG := 0x10000000
QEMU_MACHINE     := vexpress-a9
QEMU_CPU         :=
QEMU_SMP         := 4
QEMU_MEM         := 256M
QEMU_EXTRA       :=
SERIAL_BAUD      := 38400
