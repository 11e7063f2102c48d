/*
 * pack=energy's cost model (include/kernel/pack/pack_energy.h,
 * kernel/pack/energy_model.c) with the TC2 figures of qemu-tc2's DT (EAS model at
 * the top operating point: A15 capacity 1024, core 6997, cluster 15200,
 * cluster WFI 70 / off 25; A7 capacity 516, core 1024, cluster 4905, WFI
 * 25 / off 10; core idle 0):
 * - a tiny task whose previous CPU is an A15 woken for it alone goes to an
 *   A7 even when the A7 cluster is off (the cyclictest case), and stays on
 *   the A15 only while something else keeps that cluster on;
 * - the capacity margin (80%), scaled by capacity;
 * - the part of the task's run that the rail's other CPUs keep it busy
 *   anyway (rail_overlap) costs no rail time: at equal power the CPU whose
 *   siblings are busiest wins, not the one busy itself; ties keep the
 *   earlier candidate (prev, then buddy);
 * - pack_rail_on_for_others() ignores the waking task's previous CPU.
 */
#include <stdint.h>

#include "ktest.h"
#include "kernel/pack/pack_energy.h"

static const struct energy_cost a15_core = { .busy = 6997, .idle = { 0, 0 }, .nr_idle = 2 };
static const struct energy_cost a15_rail = { .busy = 15200, .idle = { 70, 25 }, .nr_idle = 2 };
static const struct energy_cost a7_core = { .busy = 1024, .idle = { 0, 0 }, .nr_idle = 2 };
static const struct energy_cost a7_rail = { .busy = 4905, .idle = { 25, 10 }, .nr_idle = 2 };
static const struct energy_cost one_rail = { .busy = 2000, .idle = { 500 }, .nr_idle = 1 };

#define PCT(x) ((uint32_t)((uint64_t)(x) * PACK_E_SCALE / 100))

static struct pack_energy_cand a15(uint32_t usage, bool rail_needed)
{
	return (struct pack_energy_cand){ &a15_core, &a15_rail, 1024, usage, rail_needed, 0, -1, 0 };
}

static struct pack_energy_cand a7(uint32_t usage, bool rail_needed)
{
	return (struct pack_energy_cand){ &a7_core, &a7_rail, 516, usage, rail_needed, 0, -1, 0 };
}

KT_CASE(tiny_task_leaves_an_a15_cluster_woken_for_it_alone)
{
	uint32_t u = PACK_E_SCALE / 1000;	/* 0.1%: a cyclictest thread */
	/* prev = an A15 busy only with this wake-up; the A7 cluster off. */
	struct pack_energy_cand c[2] = { a15(PCT(1), false), a7(0, false) };

	KT_ASSERT_EQ(pack_energy_pick(c, 2, u, 1024), 1);
	/* The A7 cluster on for others: cheaper still. */
	c[1] = a7(PCT(5), true);
	KT_ASSERT_EQ(pack_energy_pick(c, 2, u, 1024), 1);
	/* The A15 cluster on for others' work: the A7 still wins for a tiny task only if it is on. */
	c[0] = a15(PCT(1), true);
	KT_ASSERT_EQ(pack_energy_pick(c, 2, u, 1024), 1);
	c[1] = a7(0, false);
	KT_ASSERT_EQ(pack_energy_pick(c, 2, u, 1024), 0);
}

KT_CASE(waking_an_off_rail_costs_its_idle_power_over_off)
{
	struct pack_energy_cand off = a7(0, false), on = a7(0, true);
	uint32_t u = PCT(10);
	uint64_t uc = (uint64_t)u * 1024 / 516;

	/* On for others, idle: all of the run adds rail busy time. */
	KT_ASSERT_EQ(pack_energy_delta(&on, u, 1024), uc * 1024 + uc * (4905 - 25));
	KT_ASSERT_EQ(pack_energy_delta(&off, u, 1024), uc * 1024 + uc * (4905 - 10) + (PACK_E_SCALE - uc) * 15);
	/* A rail without an off state is always "on": only the busy term. */
	off.rail = &one_rail;
	KT_ASSERT_EQ(pack_energy_delta(&off, u, 1024), uc * 1024 + uc * (2000 - 500));
}

KT_CASE(capacity_margin_scaled_by_capacity)
{
	struct pack_energy_cand c = a7(PCT(50), true);

	/* 16% of an A15 is ~32% of an A7: 50% + 32% > 80%; 14% (~28%) fits. */
	KT_ASSERT_EQ(pack_energy_delta(&c, PCT(16), 1024), UINT64_MAX);
	KT_ASSERT(pack_energy_delta(&c, PCT(14), 1024) != UINT64_MAX);
	/* The same task measured on an A7 is 16% there: room. */
	KT_ASSERT(pack_energy_delta(&c, PCT(16), 516) != UINT64_MAX);
	/* No candidate with room: -1, the normal path decides. */
	c.usage = PCT(79);
	KT_ASSERT_EQ(pack_energy_pick(&c, 1, PCT(5), 516), -1);
	KT_ASSERT_EQ(pack_energy_pick(&c, 0, PCT(5), 516), -1);
}

KT_CASE(overlap_and_ties)
{
	struct pack_energy_cand c[3] = { a7(PCT(10), true), a7(PCT(40), true), a7(0, true) };
	uint32_t u = PCT(5);
	uint64_t uc = (uint64_t)u * 1024 / 516;

	/* A CPU's own busy time is no overlap: it runs one task at a time. */
	KT_ASSERT_EQ(pack_energy_delta(&c[1], u, 1024), pack_energy_delta(&c[2], u, 1024));
	/* Only the run outside its siblings' busy time adds rail busy time. */
	c[2].rail_overlap = PCT(64);
	KT_ASSERT_EQ(pack_energy_delta(&c[2], u, 1024),
		     uc * 1024 + uc * (4905 - 25) * (PACK_E_SCALE - PCT(64)) / PACK_E_SCALE);
	c[1].rail_overlap = PCT(40);
	KT_ASSERT_EQ(pack_energy_pick(c, 3, u, 1024), 2);
	/* Equal: the earlier. */
	c[1].rail_overlap = PCT(64);
	KT_ASSERT_EQ(pack_energy_pick(c, 3, u, 1024), 1);
	/* An idle rail that its other CPUs' recent work will keep on: its wake-up cost shrinks too. */
	c[0] = a7(0, false);
	c[1] = c[0];
	c[1].rail_overlap = PCT(50);
	KT_ASSERT_EQ(pack_energy_delta(&c[1], u, 1024),
		     uc * 1024 + (uc * (4905 - 10) + (PACK_E_SCALE - uc) * 15) * (PACK_E_SCALE - PCT(50)) / PACK_E_SCALE);
	KT_ASSERT_EQ(pack_energy_pick(c, 2, u, 1024), 1);
	/* A powered-off cluster nothing else uses: the whole wake-up cost. */
	KT_ASSERT_EQ(pack_energy_delta(&c[0], u, 1024), uc * 1024 + uc * (4905 - 10) + (PACK_E_SCALE - uc) * 15);
}

/* Powers are 32-bit DT cells: a whole run at 2^31 units with half of it overlapped does not overflow. */
KT_CASE(a_huge_power_does_not_overflow)
{
	static const struct energy_cost big_core = { .busy = 0, .idle = { 0 }, .nr_idle = 1 };
	static const struct energy_cost big_rail = { .busy = 0x80000000u, .idle = { 0 }, .nr_idle = 1 };
	struct pack_energy_cand c = { &big_core, &big_rail, 1024, 0, true, PACK_E_SCALE / 2, -1, 0 };

	KT_ASSERT_EQ(pack_energy_delta(&c, PCT(50), 1024), (uint64_t)PCT(50) * 0x80000000u / 2);
}

/* pack_rail_on_for_others() on masks given as words (CPUs 0-31). */
static bool on_for_others(uint32_t cpus, uint32_t idle, int prev)
{
	cpumask_t c = cpumask_from_u32(cpus), i = cpumask_from_u32(idle);

	return pack_rail_on_for_others(&c, &i, prev);
}

KT_CASE(rail_on_for_others_ignores_prev)
{
	uint32_t a7s = 0x1c;	/* CPUs 2-4 */

	KT_ASSERT(!on_for_others(a7s, 0x1c, 3));	/* all idle */
	KT_ASSERT(!on_for_others(a7s, 0x14, 3));	/* only prev busy */
	KT_ASSERT(on_for_others(a7s, 0x18, 3));	/* CPU 2 busy */
	KT_ASSERT(on_for_others(a7s, 0x0c, 0));	/* CPU 4 busy, prev elsewhere */
	KT_ASSERT(!on_for_others(0x03, 0x02, 0));	/* A15: only prev 0 busy */
	/* Past the first word: prev 33 alone busy, then CPU 64 too. */
	{
		cpumask_t c = { { 0 } }, i = { { 0 } };

		cpumask_set(&c, 33);
		cpumask_set(&c, 64);
		cpumask_set(&i, 64);
		KT_ASSERT(!pack_rail_on_for_others(&c, &i, 33));
		cpumask_clear_cpu(&i, 64);
		KT_ASSERT(pack_rail_on_for_others(&c, &i, 33));
	}
}

/*
 * A core with an idle power of its own (vexpress-a9's DT: core busy 2000,
 * WFI 500; cluster busy 4000, idle 2000, no off state): running the task adds only busy minus idle for
 * its time, since the core would draw its idle power anyway. Every case
 * above has core idle 0, where forgetting the subtraction changes nothing.
 */
KT_CASE(core_idle_power_is_subtracted_from_its_busy_power)
{
	static const struct energy_cost a9_core = { .busy = 2000, .idle = { 500 }, .nr_idle = 1 };
	static const struct energy_cost a9_rail = { .busy = 4000, .idle = { 2000 }, .nr_idle = 1 };
	struct pack_energy_cand c = { &a9_core, &a9_rail, 1024, 0, true, 0, -1, 0 };
	uint32_t u = PCT(10);

	/* 10% of the window: core (2000 - 500) x u; the rail, on anyway, (4000 - 2000) x u of the idle part (all). */
	KT_ASSERT_EQ(pack_energy_delta(&c, u, 1024),
		     (uint64_t)u * 1500 + (uint64_t)u * 2000);
}

/*
 * DVFS: on an A7 whose cluster the governor would run at 800 MHz (the EAS
 * TC2 numbers: core 549, cluster 2847 there; 1024 and 4905 at 1 GHz), the
 * task's work takes 1000 / 800 as long at those powers: 1.25 x (549 +
 * 2847) = 4245 per unit of work against 5929 at the top, so the estimate
 * falls; on a rail on anyway only the rail's busy-over-idle part counts.
 */
KT_CASE(the_governors_opp_sets_the_powers_and_the_time)
{
	static const struct energy_cost a7_core_opp = {
		.busy = 1024, .idle = { 0, 0 }, .nr_idle = 2, .nr_opps = 8,
		.busy_opp = { 187, 275, 334, 407, 447, 549, 761, 1024 },
		.cap_opp = { 150, 172, 215, 258, 301, 344, 387, 430 } };
	static const struct energy_cost a7_rail_opp = {
		.busy = 4905, .idle = { 25, 10 }, .nr_idle = 2, .nr_opps = 8,
		.busy_opp = { 2967, 2792, 2810, 2815, 2919, 2847, 3917, 4905 },
		.cap_opp = { 150, 172, 215, 258, 301, 344, 387, 430 } };
	struct pack_energy_cand top = { &a7_core_opp, &a7_rail_opp, 516, 0, true, 0, 7, 1024 };
	struct pack_energy_cand at800 = { &a7_core_opp, &a7_rail_opp, 516, 0, true, 0, 5, 819 };
	struct pack_energy_cand none = { &a7_core_opp, &a7_rail_opp, 516, 0, true, 0, -1, 0 };
	uint32_t u = PCT(10);
	uint64_t uc = (uint64_t)u * 1024 / 819;

	KT_ASSERT_EQ(pack_energy_delta(&top, u, 516), pack_energy_delta(&none, u, 516));
	KT_ASSERT_EQ(pack_energy_delta(&at800, u, 516), uc * 549 + uc * (2847 - 25));
	KT_ASSERT(pack_energy_delta(&at800, u, 516) < pack_energy_delta(&top, u, 516));
	/* At 800 MHz a CPU 70% busy at the top's speed is 87.5% busy: over the 80% margin. */
	at800.usage = PCT(70);
	KT_ASSERT_EQ(pack_energy_delta(&at800, PCT(1), 516), UINT64_MAX);
	top.usage = PCT(70);
	KT_ASSERT(pack_energy_delta(&top, PCT(1), 516) != UINT64_MAX);
}
