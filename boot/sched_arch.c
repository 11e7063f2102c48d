/* The scheduler's arch hooks on ARM: timers, IPIs, idle (include/arch/ipi.h). */
#include "arch/arm.h"
#include "arch/cost.h"
#include "arch/ipi.h"
#include "arch/smp.h"
#include "arch/spinlock.h"
#include "arch/timer.h"
#include "drivers/gic.h"
#include "drivers/timer.h"
#include "kernel/debug/inject.h"
#include "kernel/time/timer.h"

#ifdef CONFIG_SCHED_DEBUG
spinlock_t *volatile spin_waiting_on[CONFIG_NR_CPUS];
volatile uint16_t spin_waiting_ticket[CONFIG_NR_CPUS];
#endif

void arch_timer_program(uint64_t deadline_ns)
{
	if (deadline_ns == TIMER_NEVER)
		clockevent_cancel();
	else
		clockevent_set_deadline(deadline_ns);
}

bool arch_timer_read_hw(struct arch_timer_hw *hw)
{
	return clockevent_read(hw);
}

void arch_send_reschedule(int cpu)
{
	inject_delay(INJECT_IPI);
	gic_send_sgi(IPI_RESCHEDULE, 1u << cpu);
}

void arch_spin_until(uint64_t deadline_ns)
{
	volatile uint32_t sink = 0;

	/* A short loop between clock reads: the spin ends within a few us of the deadline. */
	while (arch_now_ns() < deadline_ns)
		for (int i = 0; i < 1000; i++)
			sink += (uint32_t)i;
}
