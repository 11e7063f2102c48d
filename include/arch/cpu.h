/*
 * The CPU-identity part of the arch interface used by the portable core.
 * ARM: the logical CPU number lives in TPIDRPRW (set at CPU entry).
 * Host: the port's (tools/ports/host/host_arch.c: thread-local, settable by host
 * programs; the simulator: the simulated CPU running).
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
/*
 * Host ports (tools/ports/host/host_arch.c, the simulator): functions, so that a
 * port that models interrupts can mask them and deliver pending ones when
 * they are unmasked, as a CPU does.
 */
int arch_cpu_id(void);
unsigned long arch_irq_save(void);
void arch_irq_restore(unsigned long f);
void arch_irq_enable(void);
/* Delay injection's noirq modifier: host ports deliver no injected delays. */
static inline _Bool arch_in_irq(void) { return 0; }
#endif

#endif
