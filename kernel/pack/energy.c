/*
 * pack=energy: each wake-up placed where the DT's energy model says the
 * task adds the least power (the cost model is pure, in
 * kernel/pack/energy_model.c), among its previous CPU, its buddy (the DT
 * rails' buddies) and the first idle CPU of each rail: O(rails). While the
 * waking CPU's tasks fit, no idle CPU is woken to balance (may_kick_ilb),
 * as Linux's EAS does while nothing is overutilized.
 */
#include "arch/barrier.h"
#include "kernel/sched/cpufreq.h"
#include "kernel/sched/energy.h"
#include "kernel/sched/idle.h"
#include "kernel/pack/pack.h"
#include "kernel/pack/buddy.h"
#include "kernel/pack/pack_energy.h"
#include "kernel/sched/sched_internal.h"
#include "kernel/sched/topology.h"

/* Outcomes, in the order `pack` prints them. */
enum energy_reason {
	ENERGY_PACKED,		/* the buddy costs least */
	ENERGY_PREV,		/* staying put costs least */
	ENERGY_IDLE,		/* an idle CPU costs least (or the latency guard wants one) */
	ENERGY_NONE,		/* no candidate has room: default path */
	ENERGY_NR_REASONS,
};

static const char *const energy_reasons[ENERGY_NR_REASONS] = {
	[ENERGY_PACKED] = "packed",
	[ENERGY_PREV] = "energy_prev",
	[ENERGY_IDLE] = "energy_idle",
	[ENERGY_NONE] = "energy_none",
};

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

/*
 * DVFS: the OPP @cpu's domain would run at with @uc (x PACK_E_SCALE of
 * @cpu's capacity) more on @cpu, as its governor picks (the busiest CPU
 * decides), and its speed; c->speed 0 without DVFS. O(CPUs of the domain).
 */
static void energy_cand_opp(struct pack_energy_cand *c, int cpu, uint64_t uc)
{
	const struct freq_domain *d = cpufreq_domain_of(cpu);
	uint64_t busiest = c->usage + uc;

	c->opp = -1;
	c->speed = 0;
	if (!d || d->nr_opps < 2)
		return;
	for (int o = cpumask_first(&d->cpus); o >= 0; o = cpumask_next(&d->cpus, o)) {
		uint32_t u;

		if (o == cpu || cpumask_test(&idle_hint, o))
			continue;
		u = cpu_usage(o);
		if (u > busiest)
			busiest = u;
	}
	if (busiest > PACK_E_SCALE)
		busiest = PACK_E_SCALE;
	c->opp = cpufreq_governor_opp(d, (uint32_t)(busiest >> 10));
	c->speed = (uint32_t)((uint64_t)d->khz[c->opp] * 1024 / d->khz[d->nr_opps - 1]);
}

/* Candidate @cpu's inputs to the model, as of now, for a task busy @u on a CPU of capacity @from_cap. */
static void energy_cand(struct pack_energy_cand *c, int cpu, bool is_idle, int prev, uint32_t u, uint32_t from_cap)
{
	const struct energy_model *m = energy_model();
	int r = cpu_idle_of(cpu)->rail;
	const struct rail *rail = idle_rail(r);

	c->core = &m->core[cpu];
	c->rail = &m->rail[r];
	c->capacity = sched_topo.cpu[cpu].capacity;
	c->usage = is_idle ? 0 : cpu_usage(cpu);
	c->rail_needed = pack_rail_on_for_others(&rail->cpus, &rail->idle, prev);
	energy_cand_opp(c, cpu, c->capacity ? (uint64_t)u * from_cap / c->capacity : PACK_E_SCALE);
}

/*
 * Where waking @p (last on @prev) costs least energy: its previous CPU, its
 * buddy, or the first idle CPU of each rail: O(rails), not O(CPUs). A task
 * that has been waiting too long (latency guard) is only placed on idle
 * CPUs. Returns the outcome and sets *target; ENERGY_NONE leaves the
 * choice to the default path.
 */
static int energy_select(const struct task *p, int prev, int *target)
{
	cpumask_t idle;
	int buddy = READ_ONCE(sched_topo.pack_buddy[prev]);
	int cand[2 + IDLE_MAX_RAILS], at[2 + IDLE_MAX_RAILS], nr = 0, nin = 0, pick, best;
	struct pack_energy_cand in[2 + IDLE_MAX_RAILS];
	struct sched_avg ta;
	bool guard;
	uint32_t u;

	if (!energy_model()->present)
		return ENERGY_NONE;
	/* Idle (a hint), online and allowed: the candidates beside prev and the buddy. */
	for (int i = 0; i < CPUMASK_WORDS; i++)
		idle.w[i] = READ_ONCE(idle_hint.w[i]) & READ_ONCE(sched_cpus_online.w[i]) & p->cpus_allowed.w[i];
	/*
	 * Fast path, from the model: if prev is idle on a powered rail and the
	 * buddy shares that rail, no candidate can beat it by more than the
	 * overlap term (moving only adds a remote wake-up), so skip the sums.
	 */
	if (task_allowed_on(p, prev) && cpumask_test(&idle, prev) && buddy >= 0 &&
	    cpu_idle_of(buddy)->rail == cpu_idle_of(prev)->rail &&
	    idle_rail(cpu_idle_of(prev)->rail)->state != RAIL_OFF) {
		*target = prev;
		return ENERGY_PREV;
	}
	pack_waking_avg(p, &ta);
	u = usage_fraction(&ta);
	guard = pack_waits_too_much(&ta);
	if (task_allowed_on(p, prev))
		cand[nr++] = prev;
	if (buddy >= 0 && buddy != prev && task_allowed_on(p, buddy))
		cand[nr++] = buddy;
	for (int r = 0; r < idle_nr_rails(); r++) {
		int first = cpumask_first_and(&idle, &idle_rail(r)->cpus);

		if (first >= 0)
			cand[nr++] = first;
	}
	for (int i = 0; i < nr; i++) {
		bool is_idle = cpumask_test(&idle, cand[i]);

		if (guard && !is_idle)
			continue;
		energy_cand(&in[nin], cand[i], is_idle, prev, u, sched_topo.cpu[prev].capacity);
		at[nin++] = cand[i];
	}
	pick = pack_energy_pick(in, nin, u, sched_topo.cpu[prev].capacity);
	best = pick < 0 ? -1 : at[pick];
	if (best < 0)
		return ENERGY_NONE;
	*target = best;
	if (best == prev)
		return ENERGY_PREV;
	return best == buddy ? ENERGY_PACKED : ENERGY_IDLE;
}

/*
 * As Linux's EAS while no CPU is overutilized: if this CPU's tasks fit in
 * 80% of it, waking an idle CPU (maybe a whole powered-down cluster) to
 * balance costs more than the waiting it saves; the wake-up placement (its
 * latency guard included) decides.
 */
static bool energy_may_kick_ilb(const struct rq *rq)
{
	struct sched_avg a;

	pelt_snapshot(&rq->avg, &a);
	return (uint64_t)a.usage_avg_sum * 5 > (uint64_t)a.runnable_avg_period * 4;
}

const struct pack_policy policy_energy = {
	.name = "energy",
	.desc = "each wake-up where the DT's energy model adds the least power",
	.buddy = topology_pack_buddy,
	.select = energy_select,
	.may_kick_ilb = energy_may_kick_ilb,
	.reasons = energy_reasons,
	.nr_reasons = ENERGY_NR_REASONS,
};
PACK_POLICY(policy_energy, 40);
