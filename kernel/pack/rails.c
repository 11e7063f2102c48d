/*
 * pack=rails (the default): pack buddies from the DT's power rails by the
 * seeds' rule (topology_pack_buddy()), light waking tasks go to their
 * CPU's buddy.
 */
#include "kernel/pack/pack.h"
#include "kernel/pack/buddy.h"
#include "kernel/sched/topology.h"

const struct pack_policy policy_rails = {
	.name = "rails",
	.desc = "light tasks to their CPU's pack buddy, buddies from the DT's power rails",
	.buddy = topology_pack_buddy,
	.select = buddy_select,
	.reasons = buddy_reasons,
	.nr_reasons = BUDDY_NR_REASONS,
};
PACK_POLICY(policy_rails, 20);
