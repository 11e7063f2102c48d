/*
 * The simulator's cpufreq back end: a domain's new OPP changes how fast its
 * CPUs run work (work at f takes fmax / f as long: sim_set_speed_at()),
 * d->latency_ns (the table's clock-latency-ns) after the request; until then
 * they run at the old speed, and no other request is started (busy()).
 */
#include "kernel/sched/cpufreq.h"
#include "tools/ports/sim/sim.h"

static int sim_freq_set(struct freq_domain *d, int opp)
{
	uint32_t scale = cpufreq_opp_scale(d, opp);
	uint64_t at = sim_cur->now + d->latency_ns;

	for (int cpu = cpumask_first(&d->cpus); cpu >= 0; cpu = cpumask_next(&d->cpus, cpu))
		sim_set_speed_at(cpu, scale, at);
	return 0;
}

static bool sim_freq_busy(const struct freq_domain *d)
{
	for (int cpu = cpumask_first(&d->cpus); cpu >= 0; cpu = cpumask_next(&d->cpus, cpu))
		if (sim_cpus[cpu].speed_at != SIM_NEVER && sim_cpus[cpu].speed_at > sim_cur->now)
			return true;
	return false;
}

const struct cpufreq_backend sim_cpufreq_backend = {
	.name = "sim",
	.scales_time = true,
	.set = sim_freq_set,
	.busy = sim_freq_busy,
};
