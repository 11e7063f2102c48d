/*
 * Small-task packing (the seeds' RFC 3/6-5/6): a light task that wakes goes
 * to its CPU's pack buddy when the buddy may run it and is not busy, so
 * small tasks gather on the buddies and whole power rails can stay off.
 * Everything is O(1): one buddy per CPU, computed from the topology
 * (kernel/topology.c), and one seqcount read of the buddy's average.
 *
 * The buddy table is read without locks: `pack <mode>` rewrites it one
 * word at a time, so a wake-up sees either the old or the new buddy of its
 * CPU, both valid CPUs or -1.
 */
#include "arch/barrier.h"
#include "kernel/panic.h"
#include "kernel/timer.h"
#include "kernel/sched_internal.h"
#include "kernel/topology.h"

const char *const pack_reason_names[PACK_NR_REASONS] = {
	[PACK_PACKED] = "packed",
	[PACK_NO_BUDDY] = "no_buddy",
	[PACK_NOT_LIGHT] = "not_light",
	[PACK_NOT_ALLOWED] = "not_allowed",
	[PACK_BUDDY_BUSY] = "buddy_busy",
	[PACK_WAITING] = "waiting",
};

/* A task that waits more than 3/8 of its runnable time on its buddy is not helped by packing. */
static bool waits_too_much(const struct sched_avg *a)
{
	uint32_t waiting = a->runnable_avg_sum - a->usage_avg_sum;

	return (uint64_t)waiting * 8 > (uint64_t)a->runnable_avg_sum * 3;
}

enum pack_reason pack_check(const struct task *p, int cpu, int *target)
{
	int buddy = READ_ONCE(sched_topo.pack_buddy[cpu]);
	struct sched_avg ta, ba;

	if (buddy < 0 || buddy >= sched_nr_cpus() || !((sched_online_mask() >> buddy) & 1u))
		return PACK_NO_BUDDY;
	if (!task_allowed_on(p, buddy))
		return PACK_NOT_ALLOWED;
	task_avg_read(p, &ta);
	/* Its average stopped when it went to sleep: count the sleep. */
	pelt_update(&ta, arch_now_ns(), false, false);
	if (!pelt_is_light(&ta))
		return PACK_NOT_LIGHT;
	if (buddy == cpu && waits_too_much(&ta))
		return PACK_WAITING;
	rq_avg_read(buddy, &ba);
	if (pelt_is_buddy_busy(ba.usage_avg_sum, ba.runnable_avg_period,
			       READ_ONCE(cpu_rq(buddy)->cfs.nr_running)))
		return PACK_BUDDY_BUSY;
	*target = buddy;
	return PACK_PACKED;
}

void pack_count(int cpu, enum pack_reason why)
{
	KASSERT((unsigned)why < PACK_NR_REASONS);
	__atomic_fetch_add(&cpu_rq(cpu)->pack_stats[why], 1, __ATOMIC_RELAXED);
}

/*
 * The CPU a busy CPU kicks to balance for the tickless ones (seed 5/6): an
 * idle CPU as close as possible to the caller's buddy, so that balancing
 * does not wake a cluster that packing has let power down. Without a
 * buddy: the first idle CPU.
 */
int find_new_ilb(int call_cpu)
{
	uint32_t idle = READ_ONCE(nohz_idle_cpus);
	int buddy = call_cpu >= 0 && call_cpu < sched_topo.nr_cpus ? READ_ONCE(sched_topo.pack_buddy[call_cpu]) : -1;

	if (!idle)
		return -1;
	if (buddy >= 0 && buddy < sched_topo.nr_cpus) {
		if ((idle >> buddy) & 1u)
			return buddy;
		for (int l = 0; l < sched_topo.nr_levels[buddy]; l++) {
			uint32_t near = cpumask_low32(&sched_topo.sd[buddy][l].span) & idle;

			if (near)
				return __builtin_ctz(near);
		}
	}
	return __builtin_ctz(idle);
}

int pack_set_mode(int mode)
{
	static struct topology next;	/* too big for a task stack */
	static spinlock_t lock = SPINLOCK_INIT;
	unsigned long flags;

	if (mode != PACK_OFF && mode != PACK_RAILS && mode != PACK_ALL)
		return -1;
	flags = spin_lock_irqsave(&lock);
	next = sched_topo;
	topology_build(&next, (enum pack_mode)mode);
	for (int cpu = 0; cpu < next.nr_cpus; cpu++) {
		WRITE_ONCE(sched_topo.rail[cpu], next.rail[cpu]);
		for (int l = 0; l < next.nr_levels[cpu]; l++)
			WRITE_ONCE(sched_topo.sd[cpu][l].flags, next.sd[cpu][l].flags);
		WRITE_ONCE(sched_topo.pack_buddy[cpu], next.pack_buddy[cpu]);
	}
	WRITE_ONCE(sched_topo.pack, (enum pack_mode)mode);
	spin_unlock_irqrestore(&lock, flags);
	return 0;
}
