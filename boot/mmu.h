/*
 * Flat identity map with 1 MiB sections: RAM (from the DT's /memory) is
 * Normal write-back write-allocate shareable memory, everything else is
 * Device memory, execute-never. One table, built by the boot CPU before any
 * secondary starts, shared by all CPUs.
 *
 * The boot CPU turns the MMU on before it reads the DT, with a provisional
 * map (the kernel image and the DTB as RAM): with the MMU off every data
 * access is Strongly-ordered, and an unaligned one faults (ARMv7 ARM A3.2.1;
 * QEMU enforces it from 9.x, and the DT code copies strings with newlib's
 * memcpy, which reads unaligned words). mmu_build() then turns that map
 * into the DT's in place.
 */
#ifndef BOOT_MMU_H
#define BOOT_MMU_H

#include <stdbool.h>
#include <stdint.h>

struct fdt;

/* Boot CPU, MMU off: the provisional map (image, and the DTB at @dtb if one is there), MMU and caches on. */
void mmu_enable_early(uintptr_t dtb);
/*
 * The DT's map, written over the provisional one with the MMU on (no entry
 * the boot CPU uses changes meaning on the way). Panics if the DT has no
 * usable memory or /memory does not cover the kernel image.
 */
void mmu_build(const struct fdt *fdt);
/* Enable MMU, caches and SMP coherency on the calling CPU. */
void mmu_enable(void);
/* Is [addr, addr+len) inside RAM as mapped? */
bool mmu_is_ram(uintptr_t addr, uint32_t len);
uint64_t mmu_ram_bytes(void);
/* Guard pages (unmapped) below each CPU's SVC stack and each task stack (arch_guard_page()). */
unsigned mmu_nr_guard_pages(void);
bool mmu_is_cpu_stack_guard(uintptr_t addr, int *cpu);

#endif
