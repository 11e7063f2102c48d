/*
 * pack=off: no pack buddy anywhere, every wake-up takes the default path
 * (idle prev, nearest idle CPU, prev): the seeds' "default" column. The
 * rails stay the DT's, so `topo` and the energy accounting still see them.
 */
#include "kernel/pack.h"
#include "kernel/pack/buddy.h"

const struct pack_policy policy_off = {
	.name = "off",
	.desc = "no packing: idle prev, nearest idle CPU, prev (the seeds' default)",
	.select = buddy_select,
	.reasons = buddy_reasons,
	.nr_reasons = BUDDY_NR_REASONS,
};
