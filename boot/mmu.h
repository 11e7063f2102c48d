/*
 * Flat identity map with 1 MiB sections: RAM (from the DT's /memory) is
 * Normal write-back write-allocate shareable memory, everything else is
 * Device memory, execute-never. One table, built by the boot CPU before any
 * secondary starts, shared by all CPUs.
 */
#ifndef BOOT_MMU_H
#define BOOT_MMU_H

#include <stdbool.h>
#include <stdint.h>

struct fdt;

/* Build the table (MMU still off). Panics if the DT has no usable memory. */
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
