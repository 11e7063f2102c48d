/*
 * Where a task goes when the placement policy leaves it alone: the seeds'
 * kernel's rule (Linux 3.7's select_task_rq_fair(); docs/placement.md).
 *
 * A wake-up (select_wake_fallback):
 *   1. wake_affine(): the waker's CPU or prev, whichever the task's weight
 *      unbalances less (prev when they are the same CPU, as for a task's
 *      own timer);
 *   2. select_idle_sibling(): that CPU if it is idle, else prev if idle and
 *      in the same cluster, else the first idle CPU of that CPU's cluster
 *      (its last-level-cache domain, sd_llc);
 *   3. else that CPU, busy or not. A wake-up never crosses to another
 *      cluster to find an idle CPU: that is the balancer's job, which sees
 *      load over time, not one instant's idleness. (Crossing at wake-up is
 *      what powered up TC2's A15 cluster for a light task whose A7 buddy
 *      was busy for a moment.)
 * A new task, or one whose CPU it may no longer use (select_idlest_cpu):
 *   find_idlest_group()/find_idlest_cpu() top-down from the creator's CPU:
 *   at each level the group with the least load per unit of capacity,
 *   unless the creator's own group is within imbalance_pct of it; then its
 *   least loaded CPU, and down that CPU's smaller domains.
 * Loads are queued weights (cfs.load_weight, what the balancer compares),
 * read without locks: a hint, as in Linux.
 */
#include "kernel/lib/panic.h"
#include "kernel/sched/sched_internal.h"
#include "kernel/sched/topology.h"

/* Linux 3.7's imbalance_pct for the MC and DIE levels (SD_MC_INIT, SD_CPU_INIT). */
#define IMBALANCE_PCT 125u

/*
 * The load a placement sees on @cpu: its queued weight, and one nice-0
 * task more if its wake list holds tasks on their way (a new task pushed a
 * moment ago counts before the CPU has drained it).
 */
static uint64_t placement_load(int cpu)
{
	const struct rq *rq = cpu_rq(cpu);

	return READ_ONCE(rq->cfs.load_weight) + (READ_ONCE(rq->wake_list) ? NICE_0_WEIGHT : 0);
}

/*
 * wake_affine() without task groups or sync wake-ups: pull to @this_cpu
 * (the waker's) if it is idle, or if the task's weight there still leaves
 * it no busier than prev, capacities and half the imbalance margin
 * counted, or if both are nearly empty (no more than one of the waker's
 * average tasks between them).
 */
static bool wake_affine(const struct task *p, int this_cpu, int prev_cpu)
{
	uint64_t this_load = placement_load(this_cpu), load = placement_load(prev_cpu);
	unsigned int nr = READ_ONCE(cpu_rq(this_cpu)->nr_running);

	if (this_load == 0)
		return true;	/* an idle waker: "balanced" whatever prev holds, as in 3.7 */
	if (100ull * sched_topo.cpu[prev_cpu].capacity * (this_load + p->se.weight) <=
	    (100ull + (IMBALANCE_PCT - 100) / 2) * sched_topo.cpu[this_cpu].capacity * load)
		return true;
	/*
	 * this_load + load <= the waker's average task (this_load / nr, rounded
	 * down), multiplied out: x <= floor(a / n) is x * n <= a for integers,
	 * and a 64-bit division is a ~100-instruction library call on ARMv7.
	 * No overflow: loads are sums of at most thousands of weights < 2^17.
	 */
	return nr && this_load <= load && (this_load + load) * nr <= this_load;
}

/* The first CPU of @m that @p may use and that is idle now, or -1. From idle_hint: no scan of run queues. */
static int first_idle_in(const struct task *p, const cpumask_t *m)
{
	for (int i = 0; i < CPUMASK_WORDS; i++) {
		uint32_t w = READ_ONCE(idle_hint.w[i]) & m->w[i] & p->cpus_allowed.w[i];

		for (; w; w &= w - 1) {
			int cpu = i * 32 + __builtin_ctz(w);

			if (cpu_idle_now(cpu))
				return cpu;
		}
	}
	return -1;
}

__attribute__((noinline)) int select_wake_fallback(const struct task *p, int prev_cpu, int waker_cpu)
{
	const cpumask_t *llc;
	int target = prev_cpu, cpu;

	KASSERT_DEBUG(prev_cpu >= 0 && prev_cpu < sched_topo.nr_cpus);
	if (waker_cpu != prev_cpu && waker_cpu >= 0 && waker_cpu < sched_topo.nr_cpus &&
	    task_allowed_on(p, waker_cpu) && (!task_allowed_on(p, prev_cpu) || wake_affine(p, waker_cpu, prev_cpu)))
		target = waker_cpu;
	if (!task_allowed_on(p, target))
		return select_idlest_cpu(p, target);	/* prev was taken away (affinity, offline) */
	if (cpu_idle_now(target))
		return target;
	llc = &sched_topo.llc[target];	/* empty when alone in its cluster */
	if (target != prev_cpu && cpumask_test(llc, prev_cpu) && task_allowed_on(p, prev_cpu) &&
	    cpu_idle_now(prev_cpu))
		return prev_cpu;
	if (idle_hint_empty())
		return target;
	cpu = first_idle_in(p, llc);
	return cpu >= 0 ? cpu : target;
}

/* Load per unit of capacity of @g's CPUs that @p may use (x CAPACITY_SCALE); UINT64_MAX if none. */
static uint64_t group_avg_load(const struct task *p, const struct sched_group *g)
{
	uint64_t load = 0;
	uint32_t cap = 0;

	for (int cpu = g->first; cpu >= 0 && cpu < sched_nr_cpus(); cpu = cpumask_next(&g->cpus, cpu)) {
		if (!task_allowed_on(p, cpu))
			continue;
		load += placement_load(cpu);
		cap += sched_topo.cpu[cpu].capacity;
	}
	return cap ? load * CAPACITY_SCALE / cap : UINT64_MAX;
}

/* find_idlest_group(): the least loaded group of @sd other than @cpu's, or NULL to stay in @cpu's. */
static const struct sched_group *find_idlest_group(const struct task *p, const struct sched_domain *sd, int cpu)
{
	const struct sched_group *idlest = NULL;
	uint64_t min_load = UINT64_MAX, this_load = UINT64_MAX;

	for (int i = 0; i < sd->nr_groups; i++) {
		const struct sched_group *g = sd_group(&sched_topo, sd, i);
		uint64_t avg = group_avg_load(p, g);	/* UINT64_MAX: none of its CPUs allowed */

		if (cpumask_test(&g->cpus, cpu))
			this_load = avg;
		else if (avg < min_load) {
			min_load = avg;
			idlest = g;
		}
	}
	/* Within the margin, equal loads included (3.7 moved on a tie of two idle groups), stay. */
	if (!idlest || (this_load != UINT64_MAX && 100 * this_load <= (100 + (IMBALANCE_PCT - 100) / 2) * min_load))
		return NULL;
	return idlest;
}

/* find_idlest_cpu(): @g's least loaded CPU that @p may use, @cpu on a tie; -1 if none. */
static int find_idlest_cpu(const struct task *p, const struct sched_group *g, int cpu)
{
	uint64_t min_load = UINT64_MAX;
	int idlest = -1;

	for (int c = g->first; c >= 0 && c < sched_nr_cpus(); c = cpumask_next(&g->cpus, c)) {
		uint64_t load;

		if (!task_allowed_on(p, c))
			continue;
		load = placement_load(c);
		if (load < min_load || (load == min_load && c == cpu)) {
			min_load = load;
			idlest = c;
		}
	}
	return idlest;
}

__attribute__((noinline)) int select_idlest_cpu(const struct task *p, int cpu)
{
	int level, first;
	cpumask_t allowed;

	cpumask_and(&allowed, &p->cpus_allowed, &sched_cpus_online);
	first = cpumask_first(&allowed);
	if (first < 0)
		panic("task %u (%s) may run on no CPU", (unsigned)p->tid, p->name);
	if (cpu < 0 || cpu >= sched_topo.nr_cpus)
		cpu = first;
	level = sched_topo.nr_levels[cpu] - 1;
	while (level >= 0) {
		const struct sched_domain *sd = &sched_topo.sd[cpu][level];
		const struct sched_group *g = find_idlest_group(p, sd, cpu);
		int new_cpu = g ? find_idlest_cpu(p, g, cpu) : -1;
		int weight;

		if (new_cpu < 0 || new_cpu == cpu) {
			level--;
			continue;
		}
		/* Down @new_cpu's domains smaller than this one. */
		weight = cpumask_weight(&sd->span);
		cpu = new_cpu;
		for (level = sched_topo.nr_levels[cpu] - 1; level >= 0; level--)
			if (cpumask_weight(&sched_topo.sd[cpu][level].span) < weight)
				break;
	}
	return task_allowed_on(p, cpu) ? cpu : first;
}
