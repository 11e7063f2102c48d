/*
 * What the scheduler core asks of the arch layer besides timers
 * (include/kernel/timer.h) and context switching (arch/context.h).
 */
#ifndef ARCH_IPI_H
#define ARCH_IPI_H

/* Interrupt @cpu so it runs sched_ipi() and then reschedules if needed. */
void arch_send_reschedule(int cpu);

#endif
