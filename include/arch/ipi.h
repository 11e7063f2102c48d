/*
 * Inter-processor interrupts the scheduler asks of the port.
 *
 *   arch_send_reschedule(cpu)  interrupt @cpu (never the caller) so that it
 *                              runs sched_ipi() from its interrupt and then
 *                              reschedules if needed. Any context.
 */
#ifndef ARCH_IPI_H
#define ARCH_IPI_H

/* Interrupt @cpu so it runs sched_ipi() and then reschedules if needed. */
void arch_send_reschedule(int cpu);

#endif
