/*
 * pack=all: every CPU its own power line, which is what the seeds' ARM
 * patch (5/6, clearing SD_SHARE_POWERLINE at every level) does, so every
 * cluster has a buddy even where the DT says cores share a rail.
 */
#include <string.h>

#include "kernel/pack/pack.h"
#include "kernel/pack/buddy.h"
#include "kernel/sched/topology.h"

static void powerline_per_cpu(struct topology *t)
{
	for (int c = 0; c < t->nr_cpus; c++) {
		memset(&t->powerline[c], 0, sizeof(t->powerline[c]));
		cpumask_set(&t->powerline[c], c);
	}
}

const struct pack_policy policy_all = {
	.name = "all",
	.desc = "as rails, with every CPU its own rail (the seeds' ARM patch)",
	.powerlines = powerline_per_cpu,
	.buddy = topology_pack_buddy,
	.select = buddy_select,
	.reasons = buddy_reasons,
	.nr_reasons = BUDDY_NR_REASONS,
};
PACK_POLICY(policy_all, 30);
