/*
 * pack=energy's cost model (kernel/pack/energy_model.c, used by kernel/pack/energy.c), pure so that host tests
 * can check the decisions: what running a waking task on one candidate CPU
 * adds to the energy model's power, and which candidate is cheapest.
 */
#ifndef KERNEL_PACK_ENERGY_H
#define KERNEL_PACK_ENERGY_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/sched/energy.h"

/* Fractions in 2^-20 units: tiny tasks (cyclictest: ~0.1%) must not round to 0. */
#define PACK_E_SCALE (1u << 20)
#define PACK_ENERGY_MARGIN (PACK_E_SCALE / 5 * 4)	/* a CPU above 80% busy takes no more */

struct pack_energy_cand {
	const struct energy_cost *core, *rail;	/* the candidate's and its rail's powers */
	uint32_t capacity;			/* the candidate's */
	uint32_t usage;				/* its busy fraction now, x PACK_E_SCALE (0: idle) */
	bool rail_needed;			/* its rail is on for other CPUs' work anyway */
	/*
	 * The part of the time its rail is busy for its other CPUs (x
	 * PACK_E_SCALE; the waking task's own share taken out of prev's): what
	 * the task's run may overlap. Not the candidate's own busy time: a CPU
	 * runs one task at a time, so work queued beside its own never overlaps it.
	 */
	uint32_t rail_overlap;
	/*
	 * DVFS: the OPP its domain's governor would pick with the task there
	 * and that OPP's speed over the top's (x 1024: work takes 1024 / speed
	 * as long there); speed 0: no DVFS, the top pair's powers.
	 */
	int opp;
	uint32_t speed;
};

/*
 * Linux's fits_capacity(): does a task busy @u (x PACK_E_SCALE of a CPU of
 * capacity @from_cap) fit a CPU of capacity @to_cap with 25% headroom, at
 * that CPU's top OPP (capacities are the top OPP's): u x from_cap x 1.25
 * <= to_cap. With @from_cap == @to_cap and a CPU's own busy fraction: is
 * the CPU not overutilized (above 80% of its capacity)?
 */
static inline bool pack_fits(uint32_t u, uint32_t from_cap, uint32_t to_cap)
{
	return (uint64_t)u * from_cap * 5 <= (uint64_t)to_cap * 4 * PACK_E_SCALE;
}

/*
 * Is a rail (CPUs @rail_cpus, of which @rail_idle are idle) powered for
 * something other than the waking task, last on @prev? Only if one of its
 * CPUs other than prev is busy: a rail whose only busy CPU is prev is on
 * for this wake-up alone (prev woke for the task's timer) and could power
 * down if the task ran elsewhere. @rail_idle may change under us (a hint).
 */
static inline bool pack_rail_on_for_others(const cpumask_t *rail_cpus, const cpumask_t *rail_idle, int prev)
{
	for (int i = 0; i < CPUMASK_WORDS; i++) {
		uint32_t busy = rail_cpus->w[i] & ~READ_ONCE(rail_idle->w[i]);

		if (i == prev / 32)
			busy &= ~(1u << (prev % 32));
		if (busy)
			return true;
	}
	return false;
}

/*
 * Extra power (model units x PACK_E_SCALE) of running a task busy @u (x
 * PACK_E_SCALE, measured on a CPU of capacity @from_cap) on @c; UINT64_MAX
 * when @c has no room (capacity margin).
 */
uint64_t pack_energy_delta(const struct pack_energy_cand *c, uint32_t u, uint32_t from_cap);

/* Index of the cheapest of @nr candidates (ties: the earlier), -1 when none has room. */
int pack_energy_pick(const struct pack_energy_cand *c, int nr, uint32_t u, uint32_t from_cap);

#endif
