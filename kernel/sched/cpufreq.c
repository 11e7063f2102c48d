/*
 * The cpufreq core: the frequency domains read from the DT, the governor
 * table, OPP changes (back end, per-CPU scale, residency, trace) and the
 * scheduler's hook. See include/kernel/sched/cpufreq.h.
 */
#include "kernel/sched/cpufreq.h"

#include <stdint.h>
#include <string.h>

#include "arch/barrier.h"
#include "arch/cpu.h"
#include "arch/timer.h"
#include "arch/spinlock.h"
#include "kernel/lib/format.h"
#include "kernel/lib/panic.h"
#include "kernel/lib/printk.h"
#include "kernel/sched/energy.h"
#include "kernel/sched/idle.h"
#include "kernel/sched/sched.h"
#include "kernel/trace/trace.h"

static struct cpufreq_dt dt;
bool cpufreq_enabled;
uint64_t cpufreq_idle_calls[TOPO_MAX_CPUS];
uint64_t cpufreq_next_ns[TOPO_MAX_CPUS];
uint64_t cpufreq_tick_ns = 1000000;	/* 1 / sched_hz, at init */

/* --- back ends --- */

static int set_none(struct freq_domain *d, int opp)
{
	(void)d;
	(void)opp;
	return 0;
}

/* Nothing changes speed (QEMU): the governor and the accounting run, time does not stretch. */
static const struct cpufreq_backend backend_none = {
	.name = "none",
	.scales_time = false,
	.set = set_none,
};
static const struct cpufreq_backend *backend = &backend_none;

void cpufreq_set_backend(const struct cpufreq_backend *b)
{
	KASSERT(b && b->name && b->set);
	backend = b;
}

const struct cpufreq_backend *cpufreq_backend(void)
{
	return backend;
}

/* --- governors: the linked table, sorted by rank then name on first use --- */

/* GNU ld defines __start_/__stop_<section> for a section named as a C identifier. */
extern const struct linked_entry __start_cpufreq_governors[], __stop_cpufreq_governors[];	/* NOLINT(bugprone-reserved-identifier) */

#define MAX_GOVERNORS 8
static const struct cpufreq_governor *govs[MAX_GOVERNORS];
static int nr_govs = -1;

static void gov_table_init(void)
{
	const void *objs[MAX_GOVERNORS];
	int n = linked_table_sort(__start_cpufreq_governors, __stop_cpufreq_governors, objs, MAX_GOVERNORS,
				  "cpufreq", "governors");

	for (int i = 0; i < n; i++) {
		govs[i] = objs[i];
		if (!govs[i]->start)
			panic("cpufreq: governor '%s' breaks include/kernel/sched/cpufreq.h's contract (start)",
			      govs[i]->name);
	}
	nr_govs = n;
}

const struct cpufreq_governor *cpufreq_governor_at(int i)
{
	if (__builtin_expect(nr_govs < 0, 0))
		gov_table_init();
	return i >= 0 && i < nr_govs ? govs[i] : NULL;
}

const struct cpufreq_governor *cpufreq_governor_find(const char *name)
{
	const struct cpufreq_governor *g;

	for (int i = 0; (g = cpufreq_governor_at(i)) != NULL; i++)
		if (strcmp(g->name, name) == 0)
			return g;
	return NULL;
}

const char *cpufreq_governor_list(char *buf, size_t size)
{
	const void *objs[MAX_GOVERNORS];
	int n;

	for (n = 0; cpufreq_governor_at(n); n++)
		objs[n] = govs[n];
	return linked_table_names(objs, n, buf, size);
}

/* --- domains --- */

int cpufreq_nr_domains(void)
{
	return dt.nr_domains;
}

struct freq_domain *cpufreq_domain(int i)
{
	return i >= 0 && i < dt.nr_domains ? &dt.dom[i] : NULL;
}

struct freq_domain *cpufreq_domain_of(int cpu)
{
	if (cpu < 0 || cpu >= TOPO_MAX_CPUS || dt.cpu_domain[cpu] < 0)
		return NULL;
	return &dt.dom[dt.cpu_domain[cpu]];
}

int cpufreq_opp_at_least(const struct freq_domain *d, uint32_t khz)
{
	for (int i = 0; i < d->nr_opps; i++)
		if (d->khz[i] >= khz)
			return i;
	return d->nr_opps - 1;
}

uint32_t cpufreq_scale(int cpu)
{
	return READ_ONCE(cpu_rq(cpu)->freq_scale);
}

int cpufreq_governor_opp(const struct freq_domain *d, uint32_t util)
{
	const struct cpufreq_governor *g = READ_ONCE(d->gov);

	return g->opp_for_util ? g->opp_for_util(d, util) : READ_ONCE(d->cur);
}

int cpufreq_opp_exact(const struct freq_domain *d, uint32_t khz)
{
	for (int i = 0; i < d->nr_opps; i++)
		if (d->khz[i] == khz)
			return i;
	return -1;
}

/* Close @d's residency stretch at @now. d->lock held. */
static void account(struct freq_domain *d, uint64_t now)
{
	if (now > d->opp_since_ns) {
		uint64_t dt_ns = now - d->opp_since_ns;

		d->opp_ns[d->cur] += dt_ns;
		d->khz_ns += (uint64_t)d->khz[d->cur] * dt_ns;
		d->opp_since_ns = now;
	}
}

int cpufreq_set_opp_locked(struct freq_domain *d, int opp, uint64_t now)
{
	uint32_t scale;
	int rc, cpu;

	KASSERT(opp >= 0 && opp < d->nr_opps);
	if (opp == d->cur)
		return 0;
	if (backend->busy && backend->busy(d))
		return -16;	/* EBUSY: the last transition is still under way */
	rc = backend->set(d, opp);
	if (rc < 0)
		return rc;
	account(d, now);
	if (d->rail)
		rail_set_opp(d->rail, opp, now);
	WRITE_ONCE(d->cur, opp);
	d->last_change_ns = now;
	d->nr_transitions++;
	scale = cpufreq_opp_scale(d, opp);
	for (cpu = cpumask_first(&d->cpus); cpu >= 0; cpu = cpumask_next(&d->cpus, cpu)) {
		WRITE_ONCE(cpu_rq(cpu)->freq_scale, scale);	/* read by its own PELT updates */
		__atomic_store_n(&cpufreq_next_ns[cpu], now + d->rate_limit_ns, __ATOMIC_RELAXED);
		trace_cpu_frequency(cpu, d->khz[opp]);
	}
	return 0;
}

int cpufreq_set_opp(struct freq_domain *d, int opp, uint64_t now)
{
	unsigned long flags = spin_lock_irqsave(&d->lock);
	int rc = cpufreq_set_opp_locked(d, opp, now);

	spin_unlock_irqrestore(&d->lock, flags);
	return rc;
}

/*
 * The scheduler's hooks run only while some domain of several OPPs has a
 * governor that decides from them (schedutil): with performance, powersave
 * or userspace everywhere they cost a NOP (a static branch), as without DVFS.
 */
static void update_hooks(void)
{
	static spinlock_t hooks_lock = SPINLOCK_INIT;	/* domains change under their own locks: one sync at a time */
	bool on = false;

	spin_lock(&hooks_lock);
	for (int i = 0; i < dt.nr_domains; i++)
		if (dt.dom[i].nr_opps > 1 && dt.dom[i].gov->update)
			on = true;
	WRITE_ONCE(cpufreq_enabled, on);
	static_branch_sync(&cpufreq_enabled);	/* the hooks are static branches on it */
	spin_unlock(&hooks_lock);
}

int cpufreq_set_governor(struct freq_domain *d, const struct cpufreq_governor *g, uint64_t now)
{
	unsigned long flags = spin_lock_irqsave(&d->lock);
	int rc;

	d->gov = g;
	rc = cpufreq_set_opp_locked(d, g->start(d), now);
	spin_unlock_irqrestore(&d->lock, flags);
	update_hooks();
	return rc;
}

void cpufreq_residency(struct freq_domain *d, uint64_t now, uint64_t *opp_ns, uint64_t *khz_ns)
{
	unsigned long flags = spin_lock_irqsave(&d->lock);

	account(d, now);
	if (opp_ns)
		memcpy(opp_ns, d->opp_ns, sizeof(d->opp_ns));
	*khz_ns = d->khz_ns;
	spin_unlock_irqrestore(&d->lock, flags);
}

void cpufreq_energy_counters(struct freq_domain *d, uint64_t now, uint64_t *core_pns, uint64_t *rail_pns,
			     uint64_t *khz_ns)
{
	*core_pns = *rail_pns = 0;
	if (d->rail)
		rail_energy(d->rail, now, core_pns, rail_pns);
	cpufreq_residency(d, now, NULL, khz_ns);
}

void cpufreq_update_slow(int cpu, uint64_t now, enum cpufreq_event ev)
{
	struct freq_domain *d = cpufreq_domain_of(cpu);
	int opp;

	if (!d || !d->gov->update)
		return;
	__atomic_store_n(&cpufreq_next_ns[cpu], now + d->look_ns, __ATOMIC_RELAXED);
	opp = d->gov->update(d, cpu, now, ev);
	if (opp < 0 || opp == READ_ONCE(d->cur))
		return;
	spin_lock(&d->lock);
	if (d->gov->update)	/* still a governor that decides (not switched meanwhile) */
		cpufreq_set_opp_locked(d, opp, now);
	spin_unlock(&d->lock);
}

void cpufreq_init_dt(const struct fdt *fdt)
{
	uint64_t now = arch_now_ns();
	char err[160];

	for (int cpu = 0; cpu < TOPO_MAX_CPUS; cpu++)
		cpufreq_next_ns[cpu] = 0;
	cpufreq_tick_ns = 1000000000ull / sched_hz;
	if (cpufreq_parse_dt(fdt, &sched_topo, &dt, err, sizeof(err)) < 0)
		panic("dtb: %s", err);
	for (int i = 0; i < dt.nr_domains; i++) {
		struct freq_domain *d = &dt.dom[i];

		d->lock = (spinlock_t)SPINLOCK_INIT;
		d->opp_since_ns = now;
		d->gov = &cpufreq_gov_performance;
		d->cur = cpufreq_gov_performance.start(d);
	}
	update_hooks();
}

const struct cpufreq_dt *cpufreq_table(void)
{
	return &dt;
}

/* Energy per unit of work at @opp of @d: (core + rail busy power) / capacity, x 1024. */
static uint64_t work_cost(const struct energy_model *m, const struct freq_domain *d, int opp)
{
	const struct energy_cost *core = &m->core[d->first_cpu];
	const struct energy_cost *rail = &m->rail[cpu_idle_of(d->first_cpu)->rail];
	uint32_t cap = core->nr_opps > 1 ? core->cap_opp[opp]
					 : (uint32_t)((uint64_t)core->cap_opp[0] * d->khz[opp] / d->khz[d->nr_opps - 1]);

	return ((uint64_t)energy_busy_at(core, opp) + energy_busy_at(rail, opp)) * 1024 / (cap ? cap : 1);
}

void cpufreq_model_ready(const struct energy_model *m)
{
	for (int i = 0; i < dt.nr_domains; i++) {
		struct freq_domain *d = &dt.dom[i];
		uint64_t best = UINT64_MAX;

		/*
		 * Linux's cpufreq_policy_transition_delay_us(): 1000 x the
		 * transition latency, at most 10 ms; 1 ms when none is given.
		 */
		d->rate_limit_ns = d->latency_ns ? (d->latency_ns > 10000 ? 10000000u : d->latency_ns * 1000u)
						 : 1000000u;
		/*
		 * A governor looks again a rate limit after its last look (a tick
		 * at least): no change could be made sooner after a change, and
		 * between changes the tick's look every rate limit keeps up with
		 * PELT, whose util moves ~2% per ms. RT does not wait.
		 */
		d->look_ns = d->rate_limit_ns > cpufreq_tick_ns ? d->rate_limit_ns : (uint32_t)cpufreq_tick_ns;
		if (m->present && m->nr_domains && m->domain_rail[i] >= 0) {
			int r = m->domain_rail[i];

			for (int o = 0; o < d->nr_opps; o++) {
				d->core_power[o] = energy_busy_at(&m->core[d->first_cpu], o);
				d->rail_power[o] = energy_busy_at(&m->rail[r], o);
			}
			d->rail = idle_rail(r);
			rail_set_dvfs(d->rail, d->core_power, d->rail_power, d->cur, arch_now_ns());
		}
		/* From the top down: an OPP is inefficient when a higher one costs less per unit of work. */
		for (int o = d->nr_opps - 1; o >= 0; o--) {
			uint64_t c = m->present && m->nr_domains ? work_cost(m, d, o) : 0;

			d->inefficient[o] = m->present && m->nr_domains && c > best;
			if (c < best)
				best = c;
		}
	}
}

void cpufreq_governor_from_arg(const char *arg, const char *who)
{
	const struct cpufreq_governor *g;

	if (!arg)
		return;
	g = cpufreq_governor_find(arg);
	if (!g) {
		char names[96];

		kprintf("%s: error: unknown cpufreq governor '%s' (valid: %s); using performance\n", who, arg,
			cpufreq_governor_list(names, sizeof(names)));
		return;
	}
	if (dt.nr_domains == 0)
		kprintf("%s: cpufreq=%s: the DT has no operating-points-v2 tables; every CPU stays at its one OPP\n",
			who, arg);
	for (int i = 0; i < dt.nr_domains; i++)
		cpufreq_set_governor(&dt.dom[i], g, arch_now_ns());
}
