/*
 * The CPU-identity part of the arch interface used by the portable core.
 * ARM: the logical CPU number lives in TPIDRPRW (set at CPU entry).
 * Host: thread-local, settable by tests (host_set_cpu_id).
 */
#ifndef ARCH_CPU_H
#define ARCH_CPU_H

#ifdef __arm__
#include "arch/arm.h"
static inline int arch_cpu_id(void)
{
	return (int)read_tpidrprw();
}
/* Debug kernels: is this CPU inside an interrupt handler (boot/trap.c)? */
_Bool arch_in_irq(void);
static inline unsigned long arch_irq_save(void) { return irq_save(); }
static inline void arch_irq_restore(unsigned long f) { irq_restore(f); }
static inline void arch_irq_enable(void) { irq_enable(); }
#else
int arch_cpu_id(void);
void host_set_cpu_id(int cpu);
static inline _Bool arch_in_irq(void) { return 0; }
static inline unsigned long arch_irq_save(void) { return 0; }
static inline void arch_irq_restore(unsigned long f) { (void)f; }
static inline void arch_irq_enable(void) { }
#endif

#endif
