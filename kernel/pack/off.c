/*
 * pack=off: no pack buddy anywhere, every wake-up takes the default path
 * (waker or prev, then an idle CPU of its cluster: docs/placement.md): the
 * seeds' "default" column. The
 * rails stay the DT's, so `topo` and the energy accounting still see them.
 */
#include "kernel/pack/pack.h"
#include "kernel/pack/buddy.h"

const struct pack_policy policy_off = {
	.name = "off",
	.desc = "no packing: waker or prev, then an idle CPU of its cluster (the seeds' default)",
	.select = buddy_select,
	.reasons = buddy_reasons,
	.nr_reasons = BUDDY_NR_REASONS,
};
PACK_POLICY(policy_off, 10);
