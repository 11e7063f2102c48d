/*
 * Load balancing over the scheduling domains of kernel/sched/topology.c.
 *
 * A CPU only ever pulls tasks to itself (or, as the idle-load-balancer, to
 * an idle tickless CPU it balances for). Three triggers:
 * - periodic: from the tick, each domain level at its own interval
 *   (span weight in ms, times BUSY_FACTOR when the CPU is busy), so higher
 *   levels, which cost more to scan and to migrate across, run less often;
 * - new-idle: a CPU that has just run out of work tries each level once;
 * - nohz idle balance: idle CPUs have no tick, so a busy CPU with waiting
 *   tasks kicks one idle CPU (find_new_ilb) to balance on behalf of all
 *   the tickless ones.
 * Loads are read without locks to choose a source; the move itself is
 * re-checked under both rq locks.
 */
#include <stddef.h>

#include "arch/barrier.h"
#include "arch/cpu.h"
#include "arch/ipi.h"
#include "kernel/lib/panic.h"
#include "kernel/sched/sched_internal.h"
#include "kernel/sched/topology.h"

#define BUSY_FACTOR 8
#define NOHZ_KICK_INTERVAL_NS 4000000ull	/* at most one kick per 4 ms */
#define MAX_LOOP 32				/* tasks examined per pull */

cpumask_t nohz_idle_cpus;
cpumask_t sched_overloaded;
#if CPUMASK_WORDS > 1
int sched_nr_overloaded;
#endif
static uint64_t nohz_next_kick;

/* The load the balancer sees: queued weight scaled to the CPU's capacity. */
static uint64_t cpu_load(int cpu)
{
	return READ_ONCE(cpu_rq(cpu)->cfs.load_weight);
}

static uint64_t scaled(uint64_t load, uint32_t capacity)
{
	return load * CAPACITY_SCALE / capacity;
}

struct group_stats {
	uint64_t load;
	uint32_t capacity;
	unsigned int nr_running;
	bool has_waiting;	/* some CPU has a task queued behind curr */
	uint64_t avg;		/* load per capacity unit, x CAPACITY_SCALE */
};

static void group_stats(const struct sched_group *g, struct group_stats *s)
{
	s->load = 0;
	s->nr_running = 0;
	s->has_waiting = false;
	s->capacity = g->capacity;
	for (int cpu = cpumask_first(&g->cpus); cpu >= 0 && cpu < sched_nr_cpus(); cpu = cpumask_next(&g->cpus, cpu)) {
		s->load += cpu_load(cpu);
		s->nr_running += READ_ONCE(cpu_rq(cpu)->cfs.nr_running);
		if (READ_ONCE(cpu_rq(cpu)->cfs.nr_running) >= 2)
			s->has_waiting = true;
	}
	s->avg = scaled(s->load, s->capacity);
}

/* Busiest CPU of @g that has a task waiting (not just one running). */
static int busiest_cpu(const struct sched_group *g, int dst)
{
	uint64_t best = 0;
	int busiest = -1;

	for (int cpu = cpumask_first(&g->cpus); cpu >= 0 && cpu < sched_nr_cpus(); cpu = cpumask_next(&g->cpus, cpu)) {
		uint64_t l;

		if (cpu == dst || READ_ONCE(cpu_rq(cpu)->cfs.nr_running) < 2)
			continue;
		l = scaled(cpu_load(cpu), sched_topo.cpu[cpu].capacity);
		if (l > best) {
			best = l;
			busiest = cpu;
		}
	}
	return busiest;
}

/* Does moving @w from @src to @dst bring their scaled loads strictly closer? */
static bool move_improves(uint64_t src_load, uint64_t dst_load, uint32_t w, int src, int dst)
{
	uint32_t cs = sched_topo.cpu[src].capacity, cd = sched_topo.cpu[dst].capacity;
	int64_t before = (int64_t)scaled(src_load, cs) - (int64_t)scaled(dst_load, cd);
	int64_t after = (int64_t)scaled(src_load - w, cs) - (int64_t)scaled(dst_load + w, cd);

	if (before < 0)
		before = -before;
	if (after < 0)
		after = -after;
	return after < before;
}

/* Pull up to @imbalance of load from @src to @dst. Returns tasks moved. */
static int pull_tasks(int dst, int src, uint64_t imbalance)
{
	struct rq *d = cpu_rq(dst), *s = cpu_rq(src);
	struct sched_entity *se, *next;
	uint64_t moved = 0;
	int nr = 0, loops = 0;

	if (!double_rq_trylock(d, s))
		return 0;
	for (se = cfs_pick_first(&s->cfs); se && loops < MAX_LOOP && moved < imbalance; se = next, loops++) {
		struct task *p = task_of_se(se);

		next = cfs_next(se);
		if (s->cfs.nr_running < 2)
			break;
		if (!task_allowed_on(p, dst))
			continue;
		if (!move_improves(s->cfs.load_weight, d->cfs.load_weight, se->weight, src, dst))
			continue;
		migrate_task_locked(p, s, d);
		moved += se->weight;
		nr++;
	}
	double_rq_unlock(d, s);
	if (nr && dst != arch_cpu_id())
		resched_cpu(dst);
	return nr;
}

/* One balance pass of @dst's domain level @level. Returns tasks pulled. */
static int load_balance(int dst, int level)
{
	const struct sched_domain *sd = &sched_topo.sd[dst][level];
	struct group_stats local = { 0 }, busiest = { 0 }, st;
	const struct sched_group *busiest_group = NULL;
	uint64_t total_load = 0, total_cap = 0, avg, imbalance;
	int src;

	/* Nothing waits anywhere in the span: nothing to pull (most passes on a big machine). */
	if (!cpumask_intersects(&sched_overloaded, &sd->span))
		return 0;
	for (int i = 0; i < sd->nr_groups; i++) {
		const struct sched_group *g = sd_group(&sched_topo, sd, i);

		group_stats(g, &st);
		total_load += st.load;
		total_cap += st.capacity;
		if (cpumask_test(&g->cpus, dst))
			local = st;
		else if (st.has_waiting && st.avg > busiest.avg) {
			busiest = st;
			busiest_group = g;
		}
	}
	if (!busiest_group || busiest.avg <= local.avg)
		return 0;
	avg = total_load * CAPACITY_SCALE / total_cap;
	if (busiest.avg <= avg)
		return 0;
	/* Move what brings the busiest down to the average, or us up to it. */
	imbalance = (busiest.avg - avg) * busiest.capacity;
	if (local.avg < avg && (avg - local.avg) * local.capacity < imbalance)
		imbalance = (avg - local.avg) * local.capacity;
	imbalance /= CAPACITY_SCALE;
	if (imbalance == 0)
		imbalance = 1;	/* small imbalance: one move if it helps (move_improves) */
	src = busiest_cpu(busiest_group, dst);
	if (src < 0)
		return 0;
	cpu_rq(dst)->nr_balance_pulls[level]++;
	return pull_tasks(dst, src, imbalance);
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

/* The placement policy's say on waking an idle balancer (include/kernel/pack/pack.h). */
static bool may_kick_ilb(const struct rq *rq)
{
	const struct pack_policy *policy = READ_ONCE(sched_topo.policy);

	return !policy->may_kick_ilb || policy->may_kick_ilb(rq);
}

void balance_set_policy_tick(const struct pack_policy *policy)
{
	for (int cpu = 0; cpu < sched_nr_cpus(); cpu++)
		WRITE_ONCE(cpu_rq(cpu)->policy_tick, policy->tick);
}

void balance_tick(struct rq *rq, uint64_t now)
{
	int cpu = rq->cpu;
	bool busy = !rq->curr->is_idle;

	if (cpu >= sched_topo.nr_cpus)
		return;
	/* Most ticks balance nothing: one comparison with the earliest level. */
	if (now >= rq->next_balance_any_ns) {
		uint64_t next = UINT64_MAX;

		for (int l = 0; l < sched_topo.nr_levels[cpu] && l < 4; l++) {
			uint64_t interval = (uint64_t)sched_topo.sd[cpu][l].min_interval_ms * 1000000ull;

			if (busy)
				interval *= BUSY_FACTOR;
			if (now >= rq->next_balance_ns[l]) {
				rq->next_balance_ns[l] = now + interval;
				load_balance(cpu, l);
			}
			if (rq->next_balance_ns[l] < next)
				next = rq->next_balance_ns[l];
		}
		rq->next_balance_any_ns = next;
		/* The placement policy's look at this CPU (pack.h: pack=energy's overutilized and misfit). */
		if (rq->policy_tick)
			rq->policy_tick(rq);
	}
	/* Waiting tasks here and tickless idle CPUs elsewhere: wake an idle balancer. */
	if (rq->cfs.nr_running >= 2 && now >= READ_ONCE(nohz_next_kick) && !cpumask_empty(&nohz_idle_cpus) &&
	    may_kick_ilb(rq)) {
		int ilb = find_new_ilb(cpu);

		WRITE_ONCE(nohz_next_kick, now + NOHZ_KICK_INTERVAL_NS);
		if (ilb >= 0 && ilb != cpu) {
			WRITE_ONCE(cpu_rq(ilb)->nohz_kick, true);
			arch_send_reschedule(ilb);
		}
	}
}

int balance_newidle(struct rq *rq)
{
	int cpu = rq->cpu;

	if (cpu >= sched_topo.nr_cpus || !sched_any_overloaded())
		return 0;
	for (int l = 0; l < sched_topo.nr_levels[cpu] && l < 4; l++) {
		int n = load_balance(cpu, l);

		if (n)
			return n;
	}
	return 0;
}

void balance_nohz_kicked(struct rq *rq)
{

	rq->nr_ilb_runs++;
	for (int cpu = 0; cpu < sched_nr_cpus() && cpu < sched_topo.nr_cpus; cpu++) {
		if ((cpu != rq->cpu && !cpumask_test(&nohz_idle_cpus, cpu)) || !cpu_idle_now(cpu))
			continue;
		for (int l = 0; l < sched_topo.nr_levels[cpu] && l < 4; l++)
			if (load_balance(cpu, l))
				break;
	}
}

void nohz_enter_idle(int cpu)
{
	cpumask_set_atomic(&nohz_idle_cpus, cpu);
}

void nohz_exit_idle(int cpu)
{
	cpumask_clear_atomic(&nohz_idle_cpus, cpu);
}
