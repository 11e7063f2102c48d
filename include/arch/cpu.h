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
/*
 * One pointer per CPU for the portable core (its run queue), read in one
 * instruction where the CPU number needs three more to index an array:
 * TPIDRURO, which nothing else uses (no user mode) and the warm boot
 * restores (boot/sleep.S). Set by the CPU itself before its first read.
 * Host ports have none: the core indexes by arch_cpu_id() there.
 */
#define ARCH_HAS_CPU_LOCAL 1
static inline void *arch_cpu_local(void)
{
	return (void *)(uintptr_t)read_tpidruro();
}
static inline void arch_set_cpu_local(void *p)
{
	write_tpidruro((uint32_t)(uintptr_t)p);
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
