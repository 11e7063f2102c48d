/*
 * pack=energy's cost model (include/kernel/pack/pack_energy.h): pure functions
 * of the energy model's powers and the candidates' state, used by
 * energy_select() in kernel/pack/energy.c and tested on the host
 * (tests/host/test_pack_energy.c).
 */
#include "kernel/pack/pack_energy.h"

/*
 * The task's core busy power over idle power for the time it runs, plus
 * its rail's cost: waking a rail that nothing else keeps on keeps it on
 * at least at its idle power (over its off power) and busy while the task
 * runs; on a rail that is on anyway, only the part of the task's run that
 * does not overlap the CPU's own busy time adds rail busy time. Without the
 * first case's "nothing else", a task that once woke an A15 cluster would
 * stay there, keeping the cluster on for its own periodic wake-ups.
 */
uint64_t pack_energy_delta(const struct pack_energy_cand *c, uint32_t u, uint32_t from_cap)
{
	const struct energy_cost *core = c->core, *rail = c->rail;
	uint64_t uc = c->capacity ? (uint64_t)u * from_cap / c->capacity : PACK_E_SCALE;
	uint64_t e;

	if (uc > PACK_E_SCALE)
		uc = PACK_E_SCALE;
	if (c->usage + uc > PACK_ENERGY_MARGIN)
		return UINT64_MAX;
	e = uc * (core->busy - (core->nr_idle ? core->idle[0] : 0));
	if (!c->rail_needed && rail->nr_idle > 1) {
		uint32_t off = rail->idle[rail->nr_idle - 1];

		e += uc * (rail->busy - off) + (uint64_t)(PACK_E_SCALE - uc) * (rail->idle[0] - off);
	} else {
		e += uc * (rail->busy - (rail->nr_idle ? rail->idle[0] : 0)) / PACK_E_SCALE *
		     (PACK_E_SCALE - c->usage);
	}
	return e;
}

int pack_energy_pick(const struct pack_energy_cand *c, int nr, uint32_t u, uint32_t from_cap)
{
	uint64_t best_e = UINT64_MAX;
	int best = -1;

	for (int i = 0; i < nr; i++) {
		uint64_t e = pack_energy_delta(&c[i], u, from_cap);

		if (e < best_e) {	/* ties keep the earlier: prev, then buddy */
			best_e = e;
			best = i;
		}
	}
	return best;
}
