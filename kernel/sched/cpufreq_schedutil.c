/*
 * cpufreq governor "schedutil", after Linux's kernel/sched/cpufreq_schedutil.c:
 * driven from the scheduler's own update points (enqueue, dequeue, tick:
 * cpufreq_update()), never from a polling timer.
 *
 *   next_khz = 1.25 x fmax x util / 1024,   util = the busiest CPU of the
 *   domain, frequency-invariant (rq->avg's running share scaled by f/fmax:
 *   include/kernel/sched/pelt.h), so it means the same at every OPP;
 *
 * rounded up to the lowest OPP at or above it that is not inefficient (a
 * higher OPP does a unit of work for less energy, cluster power counted:
 * d->inefficient, from the energy model; Linux >= 5.16 skips inefficient
 * OPPs, counting the CPU's power only). Rules, as Linux's:
 * - a CPU whose last look is older than a look interval and a tick is not
 *   counted (it went idle without the tick: its figure is stale; Linux:
 *   older than a tick, sugov_next_freq_shared(), but it looks at every
 *   update, we every d->look_ns: include/kernel/sched/cpufreq.h);
 * - RT tasks runnable on the CPU: the top OPP (Linux before 5.1 did so; later
 *   ones add the RT utilisation, which with an RT task running is also
 *   most of the CPU);
 * - no change sooner than d->rate_limit_ns after the last (from the table's
 *   transition latency, cpufreq_policy_transition_delay_us());
 * - no drop while the deciding CPU has not idled since its last update
 *   (sugov_cpu_is_busy(): its util may be low only because it was just
 *   woken).
 */
#include "arch/barrier.h"
#include "kernel/sched/cpufreq.h"
#include "kernel/sched/pelt.h"
#include "kernel/sched/sched.h"

/* Per CPU, written by the CPU itself under its rq lock, read by its domain's others. */
static uint32_t util_of[TOPO_MAX_CPUS];
static bool rt_of[TOPO_MAX_CPUS];
static uint64_t stamp_of[TOPO_MAX_CPUS];
static uint64_t idle_seen[TOPO_MAX_CPUS];

static int schedutil_start(struct freq_domain *d)
{
	return d->cur;
}

/* The lowest efficient OPP whose frequency is at least @khz (the top if none). */
static int efficient_at_least(const struct freq_domain *d, uint32_t khz)
{
	int opp = cpufreq_opp_at_least(d, khz);

	while (opp < d->nr_opps - 1 && d->inefficient[opp])
		opp++;
	return opp;
}

/* 1.25 x fmax x @util / 1024 rounded up to an efficient OPP. */
static int schedutil_opp_for_util(const struct freq_domain *d, uint32_t util)
{
	/* In 64 bits: fmax up to 4e9 kHz. */
	uint64_t want = (uint64_t)d->khz[d->nr_opps - 1] * util * 5 / (4 * PELT_SCALE);

	return efficient_at_least(d, want > UINT32_MAX ? UINT32_MAX : (uint32_t)want);
}

static int schedutil_update(struct freq_domain *d, int cpu, uint64_t now, enum cpufreq_event ev)
{
	const struct rq *rq = cpu_rq(cpu);
	uint32_t util = 0;
	bool rt = false, busy;
	uint64_t stale_ns = (uint64_t)d->look_ns + cpufreq_tick_ns;
	int opp;

	WRITE_ONCE(util_of[cpu], pelt_usage_ratio(&rq->avg));
	WRITE_ONCE(rt_of[cpu], ev == CPUFREQ_RT || rq->avg_rt_running);
	WRITE_ONCE(stamp_of[cpu], now);
	busy = idle_seen[cpu] == READ_ONCE(cpufreq_idle_calls[cpu]);
	if (now - READ_ONCE(d->last_change_ns) < d->rate_limit_ns && d->nr_transitions)
		return -1;
	idle_seen[cpu] = READ_ONCE(cpufreq_idle_calls[cpu]);
	for (int c = cpumask_first(&d->cpus); c >= 0; c = cpumask_next(&d->cpus, c)) {
		/* Not looked at for longer than a look and a tick: idle tickless since, stale. */
		if (c != cpu && now - READ_ONCE(stamp_of[c]) > stale_ns)
			continue;
		rt |= READ_ONCE(rt_of[c]);
		if (READ_ONCE(util_of[c]) > util)
			util = READ_ONCE(util_of[c]);
	}
	if (rt)
		return d->nr_opps - 1;
	opp = schedutil_opp_for_util(d, util);
	if (opp < READ_ONCE(d->cur) && busy)
		return -1;	/* sugov_cpu_is_busy(): keep the frequency */
	return opp;
}

static const struct cpufreq_governor gov_schedutil = {
	.name = "schedutil",
	.desc = "1.25 x fmax x the busiest CPU's invariant util, from the scheduler's updates",
	.start = schedutil_start,
	.update = schedutil_update,
	.opp_for_util = schedutil_opp_for_util,
};
CPUFREQ_GOVERNOR(gov_schedutil, 40);
