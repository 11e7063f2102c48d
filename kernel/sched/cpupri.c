/* The RT priority index; the contract is in include/kernel/sched/cpupri.h. */
#include "kernel/sched/cpupri.h"

#include <string.h>

#include "arch/barrier.h"
#include "kernel/lib/panic.h"

static cpumask_t level_cpus[CPUPRI_NR_LEVELS];
static int cpu_level[CONFIG_NR_CPUS];

void cpupri_init(void)
{
	memset(level_cpus, 0, sizeof(level_cpus));
	/* Every CPU starts at level 0: the mask holds them all, online or not (callers and with allowed). */
	cpumask_fill(&level_cpus[0], CONFIG_NR_CPUS);
	memset(cpu_level, 0, sizeof(cpu_level));
}

void cpupri_set(int cpu, int level)
{
	int old = cpu_level[cpu];

	KASSERT_DEBUG(level >= 0 && level < CPUPRI_NR_LEVELS);
	if (old == level)
		return;
	cpumask_set_atomic(&level_cpus[level], cpu);
	cpumask_clear_atomic(&level_cpus[old], cpu);
	cpu_level[cpu] = level;
}

int cpupri_get(int cpu)
{
	return READ_ONCE(cpu_level[cpu]);
}

int cpupri_find(const cpumask_t *allowed, int below, cpumask_t *out)
{
	for (int level = 0; level < below && level < CPUPRI_NR_LEVELS; level++) {
		if (cpumask_first_and(&level_cpus[level], allowed) < 0)
			continue;
		cpumask_and(out, &level_cpus[level], allowed);
		if (!cpumask_empty(out))	/* the level may have emptied since the test */
			return level;
	}
	return -1;
}
