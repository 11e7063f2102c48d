/* cpufreq governor "powersave": every domain at its lowest OPP (Linux's: the policy's minimum). */
#include "kernel/sched/cpufreq.h"

static int powersave_start(struct freq_domain *d)
{
	(void)d;
	return 0;
}

static const struct cpufreq_governor gov_powersave = {
	.name = "powersave",
	.desc = "the lowest OPP always",
	.start = powersave_start,
};
CPUFREQ_GOVERNOR(gov_powersave, 20);
