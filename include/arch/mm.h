/*
 * Memory protection the kernel asks of the port.
 *
 *   arch_guard_page(addr)  make the 4 KiB page at @addr (page-aligned,
 *                          inside the kernel image's RAM) fault on every
 *                          access, so that a stack running over it faults
 *                          instead of corrupting its neighbour. The kernel
 *                          calls it from sched_init(), on the boot CPU,
 *                          before any other CPU runs; a port without memory
 *                          protection (the host) does nothing.
 */
#ifndef ARCH_MM_H
#define ARCH_MM_H

#include <stdint.h>

#define ARCH_PAGE_SIZE 4096u

void arch_guard_page(uintptr_t addr);

#endif
