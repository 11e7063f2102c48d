/*
 * Small-task packing (the seeds' RFC 3/6-5/6): a light task that wakes goes
 * to its CPU's pack buddy when the buddy may run it and is not busy, so
 * small tasks gather on the buddies and whole power rails can stay off.
 * Everything is O(1): one buddy per CPU, computed from the topology
 * (kernel/sched/topology.c), and one seqcount read of the buddy's average.
 *
 * The buddy table is read without locks: `pack <mode>` rewrites it one
 * word at a time, so a wake-up sees either the old or the new buddy of its
 * CPU, both valid CPUs or -1.
 */
#include "arch/barrier.h"
#include "kernel/energy.h"
#include "kernel/idle.h"
#include "kernel/pack_energy.h"
#include "kernel/panic.h"
#include "kernel/timer.h"
#include "kernel/sched/sched_internal.h"
#include "kernel/topology.h"

const char *const pack_reason_names[PACK_NR_REASONS] = {
	[PACK_PACKED] = "packed",
	[PACK_NO_BUDDY] = "no_buddy",
	[PACK_NOT_LIGHT] = "not_light",
	[PACK_NOT_ALLOWED] = "not_allowed",
	[PACK_BUDDY_BUSY] = "buddy_busy",
	[PACK_WAITING] = "waiting",
	[PACK_ENERGY_PREV] = "energy_prev",
	[PACK_ENERGY_IDLE] = "energy_idle",
	[PACK_ENERGY_NONE] = "energy_none",
};

/* A task that waits more than 3/8 of its runnable time on its buddy is not helped by packing. */
static bool waits_too_much(const struct sched_avg *a)
{
	uint32_t waiting = a->runnable_avg_sum - a->usage_avg_sum;

	return (uint64_t)waiting * 8 > (uint64_t)a->runnable_avg_sum * 3;
}

/*
 * A waking task's average as of now: it stopped when the task went to
 * sleep, so count the sleep (a clock read and an update; pack_check skips
 * it when pelt_stays_light() already answers).
 */
static void waking_task_avg(const struct task *p, struct sched_avg *ta)
{
	task_avg_read(p, ta);
	pelt_update(ta, arch_now_ns(), false, false);
}

enum pack_reason pack_check(const struct task *p, int cpu, int *target)
{
	int buddy = READ_ONCE(sched_topo.pack_buddy[cpu]);
	unsigned int buddy_running;
	struct sched_avg ta, ba;

	if (buddy < 0 || buddy >= sched_nr_cpus() || !sched_cpu_online_now(buddy))
		return PACK_NO_BUDDY;
	if (!task_allowed_on(p, buddy))
		return PACK_NOT_ALLOWED;
	task_avg_read(p, &ta);
	/* Its own buddy: the waiting test needs the average as of now. */
	if (buddy == cpu || !pelt_stays_light(&ta)) {
		pelt_update(&ta, arch_now_ns(), false, false);
		if (!pelt_is_light(&ta))
			return PACK_NOT_LIGHT;
		if (buddy == cpu && waits_too_much(&ta))
			return PACK_WAITING;
	}
	/* Nothing queued there: usage << 0 > period cannot hold, no average needed. */
	buddy_running = READ_ONCE(cpu_rq(buddy)->cfs.nr_running);
	if (buddy_running > 0) {
		rq_avg_read(buddy, &ba);
		if (pelt_is_buddy_busy(ba.usage_avg_sum, ba.runnable_avg_period, buddy_running))
			return PACK_BUDDY_BUSY;
	}
	*target = buddy;
	return PACK_PACKED;
}

/*
 * The CPU a busy CPU kicks to balance for the tickless ones (seed 5/6): an
 * idle CPU as close as possible to the caller's buddy, so that balancing
 * does not wake a cluster that packing has let power down. Without a
 * buddy: the first idle CPU.
 */
int find_new_ilb(int call_cpu)
{
	cpumask_t idle = nohz_idle_cpus;	/* a copy: the bits change under us */
	int buddy = call_cpu >= 0 && call_cpu < sched_topo.nr_cpus ? READ_ONCE(sched_topo.pack_buddy[call_cpu]) : -1;

	if (buddy >= 0 && buddy < sched_topo.nr_cpus) {
		if (cpumask_test(&idle, buddy))
			return buddy;
		for (int l = 0; l < sched_topo.nr_levels[buddy]; l++) {
			cpumask_t near;
			int cpu;

			cpumask_and(&near, &sched_topo.sd[buddy][l].span, &idle);
			cpu = cpumask_first(&near);
			if (cpu >= 0)
				return cpu;
		}
	}
	return cpumask_first(&idle);
}

int pack_set_mode(int mode)
{
	static struct topology next;	/* too big for a task stack */
	static spinlock_t lock = SPINLOCK_INIT;
	unsigned long flags;

	if (mode != PACK_OFF && mode != PACK_RAILS && mode != PACK_ALL && mode != PACK_ENERGY)
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

/* ------------------------------------------------------------ pack=energy */

static uint32_t usage_fraction(const struct sched_avg *a)
{
	return a->runnable_avg_period ? (uint32_t)(((uint64_t)a->usage_avg_sum << 20) / a->runnable_avg_period) : 0;
}

/* Recent busy fraction of @cpu (PELT usage, x PACK_E_SCALE), from any CPU. */
static uint32_t cpu_usage(int cpu)
{
	struct sched_avg a;

	rq_avg_read(cpu, &a);
	return usage_fraction(&a);
}

/* Candidate @cpu's inputs to the model, as of now. */
static void energy_cand(struct pack_energy_cand *c, int cpu, bool is_idle, int prev)
{
	const struct energy_model *m = energy_model();
	int r = cpu_idle_of(cpu)->rail;
	const struct rail *rail = idle_rail(r);

	c->core = &m->core[cpu];
	c->rail = &m->rail[r];
	c->capacity = sched_topo.cpu[cpu].capacity;
	c->usage = is_idle ? 0 : cpu_usage(cpu);
	c->rail_needed = pack_rail_on_for_others(rail->cpus, READ_ONCE(rail->idle), prev);
}

/*
 * Where waking @p (last on @prev) costs least energy: its previous CPU, its
 * buddy, or the first idle CPU of each rail: O(rails), not O(CPUs). A task
 * that has been waiting too long (latency guard) is only placed on idle
 * CPUs. Returns the reason and sets *target; PACK_ENERGY_NONE leaves the
 * choice to the normal path.
 */
enum pack_reason pack_energy_select(const struct task *p, int prev, int *target)
{
	/* Rails track at most 32 CPUs (kernel/sched/idle_dt.c), so the energy path works in one word. */
	uint32_t idle = cpumask_low32(&idle_hint) & sched_online_mask() & cpumask_low32(&p->cpus_allowed);
	int buddy = READ_ONCE(sched_topo.pack_buddy[prev]);
	int cand[2 + IDLE_MAX_RAILS], at[2 + IDLE_MAX_RAILS], nr = 0, nin = 0, pick, best;
	struct pack_energy_cand in[2 + IDLE_MAX_RAILS];
	struct sched_avg ta;
	bool guard;
	uint32_t u;

	if (!energy_model()->present)
		return PACK_ENERGY_NONE;
	/*
	 * Fast path, from the model: if prev is idle on a powered rail and the
	 * buddy shares that rail, no candidate can beat it by more than the
	 * overlap term (moving only adds a remote wake-up), so skip the sums.
	 */
	if (task_allowed_on(p, prev) && ((idle >> prev) & 1u) && buddy >= 0 &&
	    cpu_idle_of(buddy)->rail == cpu_idle_of(prev)->rail &&
	    idle_rail(cpu_idle_of(prev)->rail)->state != RAIL_OFF) {
		*target = prev;
		return PACK_ENERGY_PREV;
	}
	waking_task_avg(p, &ta);
	u = usage_fraction(&ta);
	guard = waits_too_much(&ta);
	if (task_allowed_on(p, prev))
		cand[nr++] = prev;
	if (buddy >= 0 && buddy != prev && task_allowed_on(p, buddy))
		cand[nr++] = buddy;
	for (int r = 0; r < idle_nr_rails(); r++) {
		uint32_t m = idle & idle_rail(r)->cpus;

		if (m)
			cand[nr++] = __builtin_ctz(m);
	}
	for (int i = 0; i < nr; i++) {
		bool is_idle = (idle >> cand[i]) & 1u;

		if (guard && !is_idle)
			continue;
		energy_cand(&in[nin], cand[i], is_idle, prev);
		at[nin++] = cand[i];
	}
	pick = pack_energy_pick(in, nin, u, sched_topo.cpu[prev].capacity);
	best = pick < 0 ? -1 : at[pick];
	if (best < 0)
		return PACK_ENERGY_NONE;
	*target = best;
	if (best == prev)
		return PACK_ENERGY_PREV;
	return best == buddy ? PACK_PACKED : PACK_ENERGY_IDLE;
}
