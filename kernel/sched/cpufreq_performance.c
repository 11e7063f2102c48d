/* cpufreq governor "performance" (the default): every domain at its top OPP, as before DVFS. */
#include "kernel/sched/cpufreq.h"

static int performance_start(struct freq_domain *d)
{
	return d->nr_opps - 1;
}

const struct cpufreq_governor cpufreq_gov_performance = {
	.name = "performance",
	.desc = "the top OPP always (the default)",
	.start = performance_start,
};
CPUFREQ_GOVERNOR(cpufreq_gov_performance, 10);
