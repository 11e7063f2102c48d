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
 * does not overlap the rail's other CPUs' busy time adds rail busy time
 * (so, at equal power, the CPU with the most spare capacity of a domain
 * wins, as in Linux's find_energy_efficient_cpu()). Without the
 * first case's "nothing else", a task that once woke an A15 cluster would
 * stay there, keeping the cluster on for its own periodic wake-ups.
 */
/* @x x @f / PACK_E_SCALE (@f <= PACK_E_SCALE) without overflow for any @x below 2^60: powers are DT cells. */
_Static_assert(PACK_E_SCALE == 1u << 20, "scale_by() shifts by 20");
static uint64_t scale_by(uint64_t x, uint64_t f)
{
	return (x >> 20) * f + (((x & (PACK_E_SCALE - 1)) * f) >> 20);
}

uint64_t pack_energy_delta(const struct pack_energy_cand *c, uint32_t u, uint32_t from_cap)
{
	const struct energy_cost *core = c->core, *rail = c->rail;
	uint64_t uc = c->capacity ? (uint64_t)u * from_cap / c->capacity : PACK_E_SCALE;
	uint32_t core_busy = core->busy, rail_busy = rail->busy;
	uint64_t e;
	uint64_t usage = c->usage, overlap = c->rail_overlap;

	/* DVFS: the powers at the OPP the governor would pick, the work stretched to its speed. */
	if (c->speed) {
		core_busy = energy_busy_at(core, c->opp);
		rail_busy = energy_busy_at(rail, c->opp);
		uc = uc * 1024 / c->speed;
		usage = usage * 1024 / c->speed;
		if (usage > PACK_E_SCALE)
			usage = PACK_E_SCALE;
	}
	if (uc > PACK_E_SCALE)
		uc = PACK_E_SCALE;
	if (usage + uc > PACK_ENERGY_MARGIN)
		return UINT64_MAX;
	e = uc * (core_busy - (core->nr_idle ? core->idle[0] : 0));
	if (overlap > PACK_E_SCALE)
		overlap = PACK_E_SCALE;
	if (!c->rail_needed && rail->nr_idle > 1) {
		uint32_t off = rail->idle[rail->nr_idle - 1];

		e += scale_by(uc * (rail_busy - off) + (uint64_t)(PACK_E_SCALE - uc) * (rail->idle[0] - off),
			      PACK_E_SCALE - overlap);
	} else {
		e += scale_by(uc * (rail_busy - (rail->nr_idle ? rail->idle[0] : 0)), PACK_E_SCALE - overlap);
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
