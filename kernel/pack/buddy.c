/*
 * Small-task packing (the seeds' RFC 3/6-5/6): a light task that wakes goes
 * to its CPU's pack buddy when the buddy may run it and is not busy, so
 * small tasks gather on the buddies and whole power rails can stay off.
 * Everything is O(1): one buddy per CPU, computed when the topology is
 * built (kernel/sched/topology.c), and one seqcount read of its average.
 *
 * The buddy table is read without locks: a policy switch rewrites it one
 * word at a time, so a wake-up sees either the old or the new buddy of its
 * CPU, both valid CPUs or -1.
 */
#include "kernel/pack/buddy.h"

#include "arch/barrier.h"
#include "kernel/sched/sched_internal.h"
#include "kernel/sched/topology.h"

const char *const buddy_reasons[BUDDY_NR_REASONS] = {
	[BUDDY_PACKED] = "packed",
	[BUDDY_NO_BUDDY] = "no_buddy",
	[BUDDY_NOT_LIGHT] = "not_light",	/* or too big for a smaller buddy */
	[BUDDY_NOT_ALLOWED] = "not_allowed",
	[BUDDY_BUSY] = "buddy_busy",
	[BUDDY_WAITING] = "waiting",
};

bool pack_waits_too_much(const struct sched_avg *a)
{
	uint32_t waiting = a->runnable_avg_sum - a->usage_avg_sum;

	return (uint64_t)waiting * 8 > (uint64_t)a->runnable_avg_sum * 3;
}

void pack_waking_avg(const struct task *p, struct sched_avg *out)
{
	task_avg_read(p, out);
	pelt_update(out, arch_now_ns(), false, false);
}

/*
 * Linux's fits_capacity(): @a (measured on @cpu) x 1.25 fits @buddy's
 * capacity. Without a division: a 64-bit one is a library call of ~150
 * instructions on ARM, and on every wake-up of a task on its own buddy it
 * cost cyclictest's A7 7% more busy time under QEMU (test_schedsim).
 */
static bool buddy_fits(const struct sched_avg *a, int cpu, int buddy)
{
	return (uint64_t)a->usage_avg_sum * sched_topo.cpu[cpu].capacity * 5 <=
	       (uint64_t)a->runnable_avg_period * sched_topo.cpu[buddy].capacity * 4;
}

int buddy_select(const struct task *p, int cpu, int *target)
{
	int buddy = READ_ONCE(sched_topo.pack_buddy[cpu]);
	unsigned int buddy_running;
	struct sched_avg ta, ba;

	/* One unsigned comparison for -1 and out of range; online tested once (task_allowed_on() would again). */
	if ((unsigned int)buddy >= (unsigned int)sched_nr_cpus() || !sched_cpu_online_now(buddy))
		return BUDDY_NO_BUDDY;
	if (!cpumask_test(&p->cpus_allowed, buddy))
		return BUDDY_NOT_ALLOWED;
	/*
	 * Its own buddy: the waiting test needs the average as of now (a copy,
	 * a clock read and an update); so does the fitness test for a buddy so
	 * small that a light task may not fit it (never on the shipped boards).
	 * Otherwise two words of it tell that it stays light.
	 */
	if (buddy == cpu || sched_topo.pack_buddy_check_fit[cpu] || !pelt_read_stays_light(&p->se.avg)) {
		task_avg_read(p, &ta);
		pelt_update(&ta, arch_now_ns(), false, false);
		if (!pelt_is_light(&ta) || (sched_topo.pack_buddy_check_fit[cpu] && !buddy_fits(&ta, cpu, buddy)))
			return BUDDY_NOT_LIGHT;
		if (buddy == cpu && pack_waits_too_much(&ta))
			return BUDDY_WAITING;
	}
	/* Nothing queued there: usage << 0 > period cannot hold, no average needed. */
	buddy_running = READ_ONCE(cpu_rq(buddy)->nr_running);
	if (buddy_running > 0) {
		rq_avg_read(buddy, &ba);
		if (pelt_is_buddy_busy(ba.usage_avg_sum, ba.runnable_avg_period, buddy_running))
			return BUDDY_BUSY;
	}
	*target = buddy;
	return BUDDY_PACKED;
}
