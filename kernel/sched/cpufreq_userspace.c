/*
 * cpufreq governor "userspace": the domain stays where the console puts it
 * (`cpufreq set <khz> cluster<k>`, cpufreq_set_opp()); it starts at the
 * frequency set last under it (d->user_khz), else where the domain is.
 */
#include "kernel/sched/cpufreq.h"

static int userspace_start(struct freq_domain *d)
{
	int opp = d->user_khz ? cpufreq_opp_exact(d, d->user_khz) : -1;

	return opp >= 0 ? opp : d->cur;
}

static const struct cpufreq_governor gov_userspace = {
	.name = "userspace",
	.desc = "the OPP set with `cpufreq set`",
	.start = userspace_start,
};
CPUFREQ_GOVERNOR(gov_userspace, 30);
