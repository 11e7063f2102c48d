/*
 * pack=energy: each wake-up placed where the DT's energy model says the
 * task adds the least power (the cost model is pure, in
 * kernel/pack/energy_model.c), among its previous CPU, its buddy (the DT
 * rails' buddies) and the least used idle CPU of each rail: O(rails)
 * candidates, O(CPUs of the rails) to find and price them (as Linux's EAS),
 * and only among CPUs the task fits (Linux's fits_capacity: util x 1.25 <= the
 * CPU's capacity at its top OPP). As Linux's EAS (docs/placement.md):
 * - overutilized: while any busy CPU runs above 80% of its capacity, or
 *   has had fair tasks queued for QUEUE_TICKS ticks (as of its last look,
 *   energy_tick(); one root domain, the whole machine; held ~5 ms after a
 *   look last found it), the energy choice steps aside: the default
 *   placement and the balancer (which spreads load per unit of capacity,
 *   and may kick idle CPUs) decide;
 * - misfit: a running task that no longer fits its CPU is pushed, at its
 *   CPU's balance tick, to the biggest idle CPU bigger than its own (Linux's
 *   misfit_task active balance): a task that turns CPU-bound on an A7;
 * - while the waking CPU's tasks fit and nothing is overutilized, no idle
 *   CPU is woken to balance (may_kick_ilb);
 * - without a choice to make (no energy model, one cluster, all CPUs
 *   equal: energy.h's why_flat, said once at boot), the buddy rule.
 */
#include <string.h>

#include "arch/barrier.h"
#include "kernel/sched/class.h"
#include "kernel/sched/cpufreq.h"
#include "kernel/sched/energy.h"
#include "kernel/sched/idle.h"
#include "kernel/pack/pack.h"
#include "kernel/pack/buddy.h"
#include "kernel/pack/pack_energy.h"
#include "kernel/sched/sched_internal.h"
#include "kernel/sched/topology.h"
#include "kernel/trace/trace.h"

/* Outcomes, in the order `pack` prints them. */
enum energy_reason {
	ENERGY_PACKED,		/* the buddy costs least (or the buddy rule packed it) */
	ENERGY_PREV,		/* staying put costs least */
	ENERGY_IDLE,		/* an idle CPU costs least (or the latency guard wants one) */
	ENERGY_NONE,		/* no candidate has room: default path */
	ENERGY_UNFIT,		/* it no longer fits prev: to the cheapest CPU where it fits */
	ENERGY_OVERUTIL,	/* some CPU is overutilized: default path */
	ENERGY_MISFIT,		/* not a wake-up: the tick pushed a misfit running task to a bigger CPU */
	ENERGY_BUDDY_RULE,	/* no choice on this machine (why_flat): the buddy rule left it alone */
	ENERGY_NR_REASONS,
};

static const char *const energy_reasons[ENERGY_NR_REASONS] = {
	[ENERGY_PACKED] = "packed",
	[ENERGY_PREV] = "energy_prev",
	[ENERGY_IDLE] = "energy_idle",
	[ENERGY_NONE] = "energy_none",
	[ENERGY_UNFIT] = "prev_unfit",
	[ENERGY_OVERUTIL] = "overutilized",
	[ENERGY_MISFIT] = "misfit_moved",
	[ENERGY_BUDDY_RULE] = "buddy_rule",
};

/*
 * Overutilized CPUs, as of their last look (energy_tick()): over_pelt,
 * PELT usage above 80% of capacity; over_queue, fair tasks queued behind
 * the running one at QUEUE_TICKS ticks in a row. A CPU that went idle keeps
 * its bits until it looks again: readers mask idle CPUs out, and take a
 * queue bit only while the queue is still there (energy_overutilized()).
 */
static cpumask_t over_pelt, over_queue;
/*
 * The tipping point held: once a CPU's look finds it overutilized, the
 * machine stays so for OVER_HOLD units of 2^20 ns (~5 ms) after that look,
 * whatever the bits say meanwhile. Linux clears its root domain's flag only
 * at a top-level load balance that finds nothing overutilized (every ~5 ms
 * on an idle TC2 CPU: the domain's weight in ms), not as soon as a queue
 * drains; without the hold, the choice came back between two ticks of a
 * burst and packed the burst onto the A7s again (burst16: 26 missed
 * deadlines against off's 15, 18 with it). A 32-bit stamp, so that a
 * reader on a 32-bit CPU never sees half of one; any CPU may write it
 * (the latest look wins, a tick apart at most), compared modulo 2^32.
 */
#define OVER_SHIFT 20
#define OVER_HOLD 5u
static uint32_t over_until;

static uint32_t over_now(void)
{
	return (uint32_t)(arch_now_ns() >> OVER_SHIFT);
}
/*
 * 2: PELT is ~60 ms late on a packed CPU that fills up (30% -> 80%), and
 * buddy-overload / burst16 (100 ms bursts) miss deadlines meanwhile; 8
 * spares medium and bursts (two tasks of one period colliding for ~4 ms
 * each period) the A15 wake-ups but gives those deadlines back
 * (docs/placement.md, issue 36's figures). One tick's queue is a collision.
 */
#define QUEUE_TICKS 2
static uint64_t queue_tick[TOPO_MAX_CPUS];	/* rq->ticks when last seen queued */
static unsigned int queue_run[TOPO_MAX_CPUS];	/* ticks in a row seen queued, up to then */

static void mask_assign(cpumask_t *m, int cpu, bool on)
{
	if (on != cpumask_test(m, cpu)) {
		if (on)
			cpumask_set_atomic(m, cpu);
		else
			cpumask_clear_atomic(m, cpu);
	}
}

/* Is any busy CPU overutilized? Linux's root domain flag; O(words) but for queue bits. */
static bool energy_overutilized(void)
{
	if ((int32_t)(READ_ONCE(over_until) - over_now()) > 0)
		return true;
	for (int i = 0; i < CPUMASK_WORDS; i++) {
		uint32_t busy = ~READ_ONCE(idle_hint.w[i]), q;

		if (READ_ONCE(over_pelt.w[i]) & busy)
			return true;
		for (q = READ_ONCE(over_queue.w[i]) & busy; q; q &= q - 1)
			if (READ_ONCE(cpu_rq(i * 32 + __builtin_ctz(q))->cfs.nr_running) >= 2)
				return true;
	}
	return false;
}

/*
 * @a's usage over its period, x PACK_E_SCALE, to 2^-15: a 32-bit division
 * (one instruction on an A7 or A15; a 64-bit one is a library call of
 * ~150, and a wake-up takes a dozen of these), exact enough for the
 * cyclictest thread's 0.1% (~33 units of 2^-15).
 */
_Static_assert(PELT_SUM_MAX < (1u << 17), "a PELT sum << 15 must fit 32 bits");
_Static_assert(PACK_E_SCALE == 1u << 20, "usage_fraction() scales 2^15 to 2^20");

static uint32_t usage_fraction(const struct sched_avg *a)
{
	return a->runnable_avg_period ? ((a->usage_avg_sum << 15) / a->runnable_avg_period) << 5 : 0;
}

/* Recent busy fraction of @cpu (PELT usage, x PACK_E_SCALE), from any CPU. */
static uint32_t cpu_usage(int cpu)
{
	struct sched_avg a;

	rq_avg_read(cpu, &a);
	return usage_fraction(&a);
}

/*
 * One wake-up's view of CPUs' usage: each CPU read once (direct-mapped by
 * CPU number; a collision reads again), though the candidates' rails,
 * overlaps and OPPs ask for the same CPUs several times (each read is a
 * seqcount snapshot and, for an idle CPU, a decay to now).
 */
#define USAGE_MEMO 8
struct usage_memo {
	int cpu[USAGE_MEMO];
	uint32_t u[USAGE_MEMO];
};

static void memo_init(struct usage_memo *m)
{
	for (int i = 0; i < USAGE_MEMO; i++)
		m->cpu[i] = -1;
}

static uint32_t memo_usage(struct usage_memo *m, int cpu)
{
	unsigned int i = (unsigned int)cpu % USAGE_MEMO;

	if (m->cpu[i] != cpu) {
		m->cpu[i] = cpu;
		m->u[i] = cpu_usage(cpu);
	}
	return m->u[i];
}

/*
 * DVFS: the OPP @cpu's domain would run at with @uc (x PACK_E_SCALE of
 * @cpu's capacity) more on @cpu, as its governor picks (the busiest CPU
 * decides), and its speed; c->speed 0 without DVFS. O(CPUs of the domain).
 */
static void energy_cand_opp(struct usage_memo *m, struct pack_energy_cand *c, int cpu, uint64_t uc)
{
	const struct freq_domain *d = cpufreq_domain_of(cpu);
	uint64_t busiest = c->usage + uc;

	c->opp = -1;
	c->speed = 0;
	if (!d || d->nr_opps < 2)
		return;
	if (!READ_ONCE(d->gov)->opp_for_util) {	/* its OPP does not follow util: no need for the domain's */
		c->opp = READ_ONCE(d->cur);
		c->speed = cpufreq_opp_scale(d, c->opp);
		return;
	}
	for_each_cpu(o, &d->cpus) {
		uint32_t u;

		if (o == cpu || cpumask_test(&idle_hint, o))
			continue;
		u = memo_usage(m, o);
		if (u > busiest)
			busiest = u;
	}
	if (busiest > PACK_E_SCALE)
		busiest = PACK_E_SCALE;
	c->opp = cpufreq_governor_opp(d, (uint32_t)(busiest >> 10));
	c->speed = cpufreq_opp_scale(d, c->opp);
}

/*
 * The part of the time @rail is busy for its CPUs other than @cpu (x
 * PACK_E_SCALE), were they busy independently: 1 - prod(1 - usage). The
 * waking task's own @u is taken out of @prev's usage: it will not run there
 * too. O(CPUs of the rail).
 */
static uint32_t rail_overlap(struct usage_memo *m, const struct rail *rail, int cpu, int prev, uint32_t u)
{
	uint64_t free = PACK_E_SCALE;

	for_each_cpu(o, &rail->cpus) {
		uint32_t uo;

		if (o == cpu)
			continue;
		uo = memo_usage(m, o);
		if (o == prev)
			uo = uo > u ? uo - u : 0;
		if (uo > PACK_E_SCALE)
			uo = PACK_E_SCALE;
		free = free * (PACK_E_SCALE - uo) / PACK_E_SCALE;
	}
	return (uint32_t)(PACK_E_SCALE - free);
}

/* Candidate @cpu's inputs to the model, as of now, for a task busy @u on a CPU of capacity @from_cap. */
static void energy_cand(struct usage_memo *um, struct pack_energy_cand *c, int cpu, bool is_idle, int prev, uint32_t u,
			uint32_t from_cap)
{
	const struct energy_model *m = energy_model();
	int r = cpu_idle_of(cpu)->rail;
	const struct rail *rail = idle_rail(r);

	c->core = &m->core[cpu];
	c->rail = &m->rail[r];
	c->capacity = sched_topo.cpu[cpu].capacity;
	c->usage = is_idle ? 0 : memo_usage(um, cpu);
	c->rail_needed = pack_rail_on_for_others(&rail->cpus, &rail->idle, prev);
	c->rail_overlap = rail_overlap(um, rail, cpu, prev, u);
	/* u <= 2^20 and capacities <= 1024 (energy_model()): a 32-bit division. */
	energy_cand_opp(um, c, cpu, c->capacity ? (uint32_t)(u * from_cap) / c->capacity : PACK_E_SCALE);
}

/* The biggest idle CPU of capacity above @min_cap that @p may use (the first of equals), or -1. */
static int biggest_idle_cpu(const struct task *p, uint32_t min_cap)
{
	uint32_t best_cap = min_cap;
	int best = -1;

	for (int i = 0; i < CPUMASK_WORDS; i++) {
		uint32_t w = READ_ONCE(idle_hint.w[i]) & READ_ONCE(sched_cpus_online.w[i]) & p->cpus_allowed.w[i];

		for (; w; w &= w - 1) {
			int c = i * 32 + __builtin_ctz(w);

			if (sched_topo.cpu[c].capacity > best_cap) {
				best_cap = sched_topo.cpu[c].capacity;
				best = c;
			}
		}
	}
	return best;
}

/*
 * The CPU of @idle within @rail_cpus whose tasks used it least lately (the
 * first of equals), or -1: the rail's candidate, as Linux's
 * find_energy_efficient_cpu() takes each domain's CPU with the most spare
 * capacity (an idle CPU that runs a periodic task is not free at that
 * task's next wake-up). O(idle CPUs of the rail).
 */
static int least_used_idle(struct usage_memo *m, const cpumask_t *idle, const cpumask_t *rail_cpus)
{
	uint32_t least_u = UINT32_MAX;
	int least = -1;

	for (int i = 0; i < CPUMASK_WORDS; i++) {
		for (uint32_t w = idle->w[i] & rail_cpus->w[i]; w; w &= w - 1) {
			int c = i * 32 + __builtin_ctz(w);
			uint32_t u = memo_usage(m, c);

			if (u < least_u) {
				least_u = u;
				least = c;
			}
		}
	}
	return least;
}

/* No choice to make on this machine: the buddy rule, its outcome told as ours. */
static int energy_buddy_rule(const struct task *p, int prev, int *target)
{
	return buddy_select(p, prev, target) == BUDDY_PACKED ? ENERGY_PACKED : ENERGY_BUDDY_RULE;
}

/*
 * Where waking @p (last on @prev) costs least energy: its previous CPU, its
 * buddy, or the least used idle CPU of each rail (O(rails) candidates),
 * among those it fits. A task that has been waiting too long (latency
 * guard) is only placed on idle CPUs; one that fits none of them is left to the
 * default path (and to the misfit push at the tick). Returns the outcome and sets
 * *target; ENERGY_NONE and ENERGY_OVERUTIL leave the choice to the default
 * path.
 */
static int energy_select(const struct task *p, int prev, int *target)
{
	cpumask_t idle;
	int buddy = READ_ONCE(sched_topo.pack_buddy[prev]);
	int cand[2 + IDLE_MAX_RAILS], at[2 + IDLE_MAX_RAILS], nr = 0, nin = 0, pick, best;
	struct pack_energy_cand in[2 + IDLE_MAX_RAILS];
	uint32_t prev_cap = sched_topo.cpu[prev].capacity;
	struct sched_avg ta;
	struct usage_memo um;
	bool guard, prev_fits;
	uint32_t u;

	if (energy_model()->why_flat)
		return energy_buddy_rule(p, prev, target);
	if (energy_overutilized())
		return ENERGY_OVERUTIL;
	pack_waking_avg(p, &ta);
	u = usage_fraction(&ta);
	prev_fits = pack_fits(u, prev_cap, prev_cap);
	/* Idle (a hint), online and allowed: the candidates beside prev and the buddy. */
	for (int i = 0; i < CPUMASK_WORDS; i++)
		idle.w[i] = READ_ONCE(idle_hint.w[i]) & READ_ONCE(sched_cpus_online.w[i]) & p->cpus_allowed.w[i];
	/*
	 * Fast path, from the model: if prev is idle on a powered rail, the task
	 * fits it and the buddy shares that rail, no candidate can beat it by
	 * more than the overlap term (moving only adds a remote wake-up), so
	 * skip the sums.
	 */
	if (prev_fits && task_allowed_on(p, prev) && cpumask_test(&idle, prev) && buddy >= 0 &&
	    cpu_idle_of(buddy)->rail == cpu_idle_of(prev)->rail &&
	    idle_rail(cpu_idle_of(prev)->rail)->state != RAIL_OFF) {
		*target = prev;
		return ENERGY_PREV;
	}
	guard = pack_waits_too_much(&ta);
	memo_init(&um);
	if (task_allowed_on(p, prev))
		cand[nr++] = prev;
	if (buddy >= 0 && buddy != prev && task_allowed_on(p, buddy))
		cand[nr++] = buddy;
	for (int r = 0; r < idle_nr_rails(); r++) {
		int least = least_used_idle(&um, &idle, &idle_rail(r)->cpus);

		if (least >= 0)
			cand[nr++] = least;
	}
	for (int i = 0; i < nr; i++) {
		bool is_idle = cpumask_test(&idle, cand[i]);

		if (guard && !is_idle)
			continue;
		energy_cand(&um, &in[nin], cand[i], is_idle, prev, u, prev_cap);
		at[nin++] = cand[i];
	}
	/*
	 * Fitness needs no test of its own here: the model gives no room
	 * (pack_energy_delta(): usage + the task's share, stretched to the
	 * governor's OPP, within 80%) where the task does not fit.
	 */
	pick = pack_energy_pick(in, nin, u, prev_cap);
	best = pick < 0 ? -1 : at[pick];
	if (best < 0)
		return ENERGY_NONE;
	*target = best;
	if (best == prev)
		return ENERGY_PREV;
	if (!prev_fits)
		return ENERGY_UNFIT;
	return best == buddy ? ENERGY_PACKED : ENERGY_IDLE;
}

/*
 * As Linux's EAS: while nothing is overutilized and this CPU's tasks fit
 * in 80% of it, waking an idle CPU (maybe a whole powered-down cluster) to
 * balance costs more than the waiting it saves; the wake-up placement (its
 * latency guard included) decides. Overutilized, the balancer spreads.
 */
static bool energy_may_kick_ilb(const struct rq *rq)
{
	struct sched_avg a;

	if (energy_model()->why_flat || energy_overutilized())
		return true;
	pelt_snapshot(&rq->avg, &a);
	return (uint64_t)a.usage_avg_sum * 5 > (uint64_t)a.runnable_avg_period * 4;
}

/*
 * At a tick of @rq's CPU that balances (every balance interval, 16-24 ms on
 * a busy TC2 CPU) or finds fair tasks queued (every tick while they are):
 * its overutilized bits, and the misfit check of its running fair task (Linux's update_misfit_status() and the active
 * balance that follows): a task whose average no longer fits this CPU is
 * pushed at its next switch, which the tick asks for now, to the biggest
 * idle CPU bigger than this one. O(1) unless the task misfits.
 */
static void energy_tick(struct rq *rq)
{
	int cpu = rq->cpu, dst;
	uint32_t cap = sched_topo.cpu[cpu].capacity;
	const struct task *curr = rq->curr;
	struct sched_avg a;
	bool over_usage, over_q;

	if (energy_model()->why_flat)
		return;
	pelt_snapshot(&rq->avg, &a);
	/* Above 80%, or a queue at QUEUE_TICKS ticks in a row (twice in one tick counts once). */
	if (rq->cfs.nr_running >= 2 && queue_tick[cpu] != rq->ticks) {
		queue_run[cpu] = queue_tick[cpu] + 1 == rq->ticks ? queue_run[cpu] + 1 : 1;
		queue_tick[cpu] = rq->ticks;
	}
	over_usage = !pack_fits(usage_fraction(&a), cap, cap);
	over_q = rq->cfs.nr_running >= 2 && queue_run[cpu] >= QUEUE_TICKS;
	mask_assign(&over_pelt, cpu, over_usage);
	mask_assign(&over_queue, cpu, over_q);
	if (over_usage || over_q)
		WRITE_ONCE(over_until, over_now() + OVER_HOLD);
	rq->misfit_push = NULL;
	if (curr->is_idle || curr->sched_class != &fair_sched_class)
		return;
	task_avg_read(curr, &a);
	if (pack_fits(usage_fraction(&a), cap, cap))
		return;
	dst = biggest_idle_cpu(curr, cap);
	if (dst < 0)
		return;
	rq_request_push(rq, (struct task *)curr, dst);
	pack_count(cpu, ENERGY_MISFIT);
	trace_sched_pack(curr, cpu, &policy_energy, ENERGY_MISFIT, dst);
}

/*
 * A new reign: nothing overutilized until a look finds it so. A tick of the
 * old reign running meanwhile may set a bit again: these are hints.
 */
static void energy_start(void)
{
	for (int i = 0; i < CPUMASK_WORDS; i++) {
		WRITE_ONCE(over_pelt.w[i], 0);
		WRITE_ONCE(over_queue.w[i], 0);
	}
	memset(queue_run, 0, sizeof(queue_run));
	WRITE_ONCE(over_until, over_now());
}

static const char *energy_why_not(void)
{
	return energy_model()->why_flat;
}

const struct pack_policy policy_energy = {
	.name = "energy",
	.desc = "each wake-up where the DT's energy model adds the least power",
	.buddy = topology_pack_buddy,
	.select = energy_select,
	.may_kick_ilb = energy_may_kick_ilb,
	.tick = energy_tick,
	.start = energy_start,
	.why_not = energy_why_not,
	.reasons = energy_reasons,
	.nr_reasons = ENERGY_NR_REASONS,
};
PACK_POLICY(policy_energy, 40);
