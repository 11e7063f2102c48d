/* The scheduler's arch hooks on ARM: timers, IPIs, idle (include/arch/ipi.h). */
#include "arch/arm.h"
#include "arch/ipi.h"
#include "arch/smp.h"
#include "drivers/gic.h"
#include "drivers/timer.h"
#include "kernel/inject.h"
#include "kernel/timer.h"

void arch_timer_program(uint64_t deadline_ns)
{
	if (deadline_ns == TIMER_NEVER)
		clockevent_cancel();
	else
		clockevent_set_deadline(deadline_ns);
}

void arch_send_reschedule(int cpu)
{
	inject_delay(INJECT_IPI);
	gic_send_sgi(IPI_RESCHEDULE, 1u << cpu);
}
