/* The timer decisions of the warm-boot path; see include/kernel/sched/warmboot.h. */
#include "kernel/sched/warmboot.h"

#include "kernel/time/timer.h"

bool warmboot_cluster_may_power_off(const cpumask_t *cpus, int nr_cpus, uint64_t (*next_expiry)(int cpu),
				    int *blocker)
{
	for_each_cpu(cpu, cpus) {
		if (cpu >= nr_cpus)
			break;
		if (next_expiry(cpu) == TIMER_NEVER)
			continue;
		if (blocker)
			*blocker = cpu;
		return false;
	}
	if (blocker)
		*blocker = -1;
	return true;
}

int warmboot_idle_state_for_timer(const struct idle_state *st, int state, bool timer_pending)
{
	if (!timer_pending)
		return state;
	while (state > 0 && st[state].timer_stop)
		state--;
	return state;
}
