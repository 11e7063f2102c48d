/*
 * The CPU-identity part of the arch interface used by the portable core.
 * ARM: the logical CPU number lives in TPIDRPRW (set at CPU entry).
 * Host: thread-local, settable by host programs (tools/lib/host_arch.h).
 */
#ifndef ARCH_CPU_H
#define ARCH_CPU_H

#ifdef __arm__
#include "arch/arm.h"
static inline int arch_cpu_id(void)
{
	return (int)read_tpidrprw();
}
static inline unsigned long arch_irq_save(void) { return irq_save(); }
static inline void arch_irq_restore(unsigned long f) { irq_restore(f); }
static inline void arch_irq_enable(void) { irq_enable(); }
#else
int arch_cpu_id(void);
static inline unsigned long arch_irq_save(void) { return 0; }
static inline void arch_irq_restore(unsigned long f) { (void)f; }
static inline void arch_irq_enable(void) { }
#endif

#endif
