/*
 * CPU idle (include/kernel/sched/idle.h): the governor (kernel/sched/idle_gov.c), the
 * power-rail last-man / first-man state machine and residency accounting
 * (kernel/sched/rail.c), and idle states / rails from the DT (kernel/sched/idle_dt.c).
 * kernel/sched/idle.c (the kernel's idle path, platform hooks) is not used.
 * - governor: hand-built WFI / core / cluster states; state choice by
 *   predicted sleep and latency limit; the per-range correction factor
 *   (exact predictions), its clamping; typical-interval detection;
 * - rails: counting stub ops, a fake clock, exact residencies; two pthreads
 *   racing on one rail; a wake-up racing with the last man's power-down;
 * - per-CPU residency (cpu_idle_account_enter/exit);
 * - idle_parse_dt on the board DTBs (build/<board>/<board>.dtb, `make
 *   boards`) and on the fixtures tests/dts/idle-*.dts (build/host/dts/,
 *   `make host`), one per parse error with its exact message.
 * Run from the repository root (tests/run.py does).
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ktest.h"
#include "dtb_file.h"
#include "kernel/lib/fdt.h"
#include "kernel/sched/idle.h"
#include "kernel/pack/pack.h"
#include "kernel/sched/topology.h"

/* Rail masks of small examples: built from a word, compared as a word. */
#define MASK(bits) (&(cpumask_t){ { (bits) } })
#define W(mask) cpumask_low32(&(mask))

#define FIXTURE(name) "build/host/dts/" name ".dtb"
#define BOARD(name) "build/" name "/" name ".dtb"
#define US 1000ull
#define MS 1000000ull

/* ------------------------------------------------------------ governor */

/* WFI, a core state and a cluster (domain) state. */
static const struct idle_state gov_states[3] = {
	{ .name = "wfi" },
	{ .name = "core", .exit_ns = 100 * US, .min_residency_ns = 500 * US },
	{ .name = "cluster", .exit_ns = 500 * US, .min_residency_ns = 2500 * US, .domain = true,
	  .timer_stop = true },
};

/* One idle: select for @expected, then it lasted @measured. Returns the state. */
static int gov_idle(struct idle_gov *g, uint64_t expected, uint64_t measured)
{
	int s = idle_gov_select(g, gov_states, 3, expected, IDLE_NO_LIMIT);

	idle_gov_reflect(g, measured);
	return s;
}

KT_CASE(gov_init)
{
	struct idle_gov g;

	memset(&g, 0x5a, sizeof(g));
	idle_gov_init(&g);
	for (int b = 0; b < IDLE_BUCKETS; b++)
		KT_ASSERT_EQ(g.correction[b], IDLE_CORR_ONE);
	for (int i = 0; i < IDLE_HISTORY; i++)
		KT_ASSERT_EQ(g.history[i], 0);
	KT_ASSERT_EQ(g.hist_pos, 0);
}

KT_CASE(gov_deepest_fitting_state)
{
	struct idle_gov g;

	idle_gov_init(&g);
	/* A fresh governor predicts the timer exactly. */
	KT_ASSERT_EQ(idle_gov_predict(&g, 10 * US), 10 * US);
	KT_ASSERT_EQ(idle_gov_predict(&g, 1 * MS), 1 * MS);
	KT_ASSERT_EQ(idle_gov_predict(&g, 3 * MS), 3 * MS);
	KT_ASSERT(idle_gov_predict(&g, UINT64_MAX) == UINT64_MAX);
	KT_ASSERT_EQ(idle_gov_select(&g, gov_states, 3, 10 * US, IDLE_NO_LIMIT), 0);
	KT_ASSERT_EQ(idle_gov_select(&g, gov_states, 3, 1 * MS, IDLE_NO_LIMIT), 1);
	KT_ASSERT_EQ(idle_gov_select(&g, gov_states, 3, 3 * MS, IDLE_NO_LIMIT), 2);
	KT_ASSERT_EQ(idle_gov_select(&g, gov_states, 3, UINT64_MAX, IDLE_NO_LIMIT), 2);
	KT_ASSERT_EQ(idle_gov_select(&g, gov_states, 3, 0, IDLE_NO_LIMIT), 0);
	KT_ASSERT_EQ(idle_gov_select(&g, gov_states, 3, 20 * MS, IDLE_NO_LIMIT), 2);
	/* At the boundary: a prediction equal to a state's target residency takes it, one ns less does not. */
	KT_ASSERT_EQ(idle_gov_select(&g, gov_states, 3, 500 * US, IDLE_NO_LIMIT), 1);
	KT_ASSERT_EQ(idle_gov_select(&g, gov_states, 3, 500 * US - 1, IDLE_NO_LIMIT), 0);
	KT_ASSERT_EQ(idle_gov_select(&g, gov_states, 3, 2500 * US, IDLE_NO_LIMIT), 2);
	/* Fewer states offered: never beyond @nr. */
	KT_ASSERT_EQ(idle_gov_select(&g, gov_states, 2, UINT64_MAX, IDLE_NO_LIMIT), 1);
	KT_ASSERT_EQ(idle_gov_select(&g, gov_states, 1, UINT64_MAX, IDLE_NO_LIMIT), 0);
	/* Selecting learns nothing by itself. */
	KT_ASSERT_EQ(idle_gov_predict(&g, 3 * MS), 3 * MS);
	/* It records what it expected for reflect(). */
	idle_gov_select(&g, gov_states, 3, 3 * MS, IDLE_NO_LIMIT);
	KT_ASSERT_EQ(g.last_expected, 3 * MS);
	KT_ASSERT_EQ(g.last_bucket, 3);
}

KT_CASE(gov_latency_limit)
{
	struct idle_gov g;

	idle_gov_init(&g);
	/* The cluster state's exit latency is 500 us, the core state's 100 us. */
	KT_ASSERT_EQ(idle_gov_select(&g, gov_states, 3, 3 * MS, 500 * US), 2);
	KT_ASSERT_EQ(idle_gov_select(&g, gov_states, 3, 3 * MS, 500 * US - 1), 1);
	KT_ASSERT_EQ(idle_gov_select(&g, gov_states, 3, UINT64_MAX, 499 * US), 1);
	KT_ASSERT_EQ(idle_gov_select(&g, gov_states, 3, 3 * MS, 100 * US), 1);
	KT_ASSERT_EQ(idle_gov_select(&g, gov_states, 3, 3 * MS, 100 * US - 1), 0);
	KT_ASSERT_EQ(idle_gov_select(&g, gov_states, 3, 1 * MS, 99 * US), 0);
	/* Limit 0: WFI only, however long the sleep. */
	KT_ASSERT_EQ(idle_gov_select(&g, gov_states, 3, 1 * MS, 0), 0);
	KT_ASSERT_EQ(idle_gov_select(&g, gov_states, 3, 3 * MS, 0), 0);
	KT_ASSERT_EQ(idle_gov_select(&g, gov_states, 3, UINT64_MAX, 0), 0);

	/* A deeper state is skipped, not the search stopped: a later state that fits is taken. */
	{
		struct idle_state st[3] = {
			{ .name = "wfi" },
			{ .name = "slow-exit", .exit_ns = 800 * US, .min_residency_ns = 200 * US },
			{ .name = "fast-exit", .exit_ns = 50 * US, .min_residency_ns = 400 * US },
		};

		KT_ASSERT_EQ(idle_gov_select(&g, st, 3, 1 * MS, 100 * US), 2);
		KT_ASSERT_EQ(idle_gov_select(&g, st, 3, 300 * US, 100 * US), 0);
		KT_ASSERT_EQ(idle_gov_select(&g, st, 3, 1 * MS, 49 * US), 0);
	}
}

/*
 * Expected sleeps alternate between 3 ms and 6 ms (both in the 1-10 ms
 * range), so the measured lengths alternate too and never look like a
 * typical interval: only the correction factor is at work.
 */
KT_CASE(gov_correction_factor)
{
	/* Factor after n idles ending at 10% (ratio 1024/10 -> 102): c = (7c + 102) / 8. */
	static const uint32_t down[] = { 908, 807, 718, 641, 573, 514, 462, 417 };
	/* idle_gov_predict(3 ms) for those factors: 3e6 / 1024 * c + 3e6 % 1024 * c / 1024. */
	static const uint64_t pred3[] = { 2660156, 2364257, 2103515, 1877929,
					  1678710, 1505859, 1353515, 1221679 };
	struct idle_gov g;
	int s;

	idle_gov_init(&g);
	for (int i = 0; i < 8; i++) {
		uint64_t expected = i % 2 ? 6 * MS : 3 * MS;

		s = gov_idle(&g, expected, expected / 10);
		if (i == 0)
			KT_ASSERT_EQ(s, 2);	/* fresh: 3 ms predicted */
		if (i == 2 || i == 4)
			KT_ASSERT_EQ(s, 1);	/* 2364257, 1678710 ns predicted */
		KT_ASSERT_EQ(g.correction[3], down[i]);
		KT_ASSERT_EQ(idle_gov_predict(&g, 3 * MS), pred3[i]);
	}
	/* 1.22 ms predicted: the core state, not the cluster one. */
	KT_ASSERT_EQ(idle_gov_select(&g, gov_states, 3, 3 * MS, IDLE_NO_LIMIT), 1);
	/* The other ranges are unaffected. */
	for (int b = 0; b < IDLE_BUCKETS; b++)
		if (b != 3)
			KT_ASSERT_EQ(g.correction[b], IDLE_CORR_ONE);
	KT_ASSERT_EQ(idle_gov_predict(&g, 999999), 999999);	/* 100 us - 1 ms */
	KT_ASSERT_EQ(idle_gov_predict(&g, 500 * US), 500 * US);
	KT_ASSERT_EQ(idle_gov_predict(&g, 10 * MS), 10 * MS);	/* 10 - 100 ms */
	KT_ASSERT_EQ(idle_gov_predict(&g, 20 * MS), 20 * MS);
	KT_ASSERT(idle_gov_predict(&g, UINT64_MAX) == UINT64_MAX);
	KT_ASSERT_EQ(idle_gov_select(&g, gov_states, 3, 20 * MS, IDLE_NO_LIMIT), 2);
	KT_ASSERT_EQ(idle_gov_select(&g, gov_states, 3, UINT64_MAX, IDLE_NO_LIMIT), 2);
	/* Same range, other end: 1 ms -> 976 * 417 + 576 * 417 / 1024. */
	KT_ASSERT_EQ(idle_gov_predict(&g, 1 * MS), 976ull * 417 + 576 * 417 / 1024);

	/* Keep going: the factor settles at the ratio, 102 (after 40 idles: 103). */
	for (int i = 8; i < 40; i++) {
		uint64_t expected = i % 2 ? 6 * MS : 3 * MS;

		gov_idle(&g, expected, expected / 10);
	}
	KT_ASSERT_EQ(g.correction[3], 103);
	KT_ASSERT_EQ(idle_gov_predict(&g, 3 * MS), 2929ull * 103 + 704 * 103 / 1024);	/* 301757 */
	KT_ASSERT_EQ(idle_gov_select(&g, gov_states, 3, 3 * MS, IDLE_NO_LIMIT), 0);
	KT_ASSERT_EQ(idle_gov_select(&g, gov_states, 3, 6 * MS, IDLE_NO_LIMIT), 1);	/* 603515 */
	KT_ASSERT_EQ(idle_gov_predict(&g, 6 * MS), 5859ull * 103 + 384 * 103 / 1024);	/* 6e6 = 5859 * 1024 + 384 */
	KT_ASSERT_EQ(idle_gov_predict(&g, 20 * MS), 20 * MS);

	/* Recovery: idles last as long as expected again (ratio 1024): c = (7c + 1024 + 7) / 8 (rounds up). */
	{
		static const uint32_t up[] = { 219, 320, 408, 485, 553, 612, 664,
					       709, 749, 784, 814, 841, 864 };

		for (int i = 0; i < 13; i++) {
			uint64_t expected = i % 2 ? 6 * MS : 3 * MS;

			gov_idle(&g, expected, expected);
			KT_ASSERT_EQ(g.correction[3], up[i]);
			if (i == 2) {
				/* 408: a 6 ms sleep predicts 2390625 ns, still the core state */
				KT_ASSERT_EQ(idle_gov_predict(&g, 6 * MS), 2390625);
				KT_ASSERT_EQ(idle_gov_select(&g, gov_states, 3, 6 * MS, IDLE_NO_LIMIT), 1);
			}
			if (i == 4) {
				/* 553: 3240234 ns, the cluster state again */
				KT_ASSERT_EQ(idle_gov_predict(&g, 6 * MS), 3240234);
				KT_ASSERT_EQ(idle_gov_select(&g, gov_states, 3, 6 * MS, IDLE_NO_LIMIT), 2);
			}
		}
	}
	KT_ASSERT_EQ(idle_gov_predict(&g, 3 * MS), 2531250);
	KT_ASSERT_EQ(idle_gov_predict(&g, 20 * MS), 20 * MS);
	/* ... and it climbs all the way back to exactly one. */
	for (int i = 0; i < 40; i++)
		gov_idle(&g, 3 * MS, 3 * MS);
	KT_ASSERT_EQ(g.correction[3], IDLE_CORR_ONE);
}

KT_CASE(gov_correction_clamps)
{
	struct idle_gov g;

	/* Longer than expected counts as exactly as expected: the factor never exceeds one. */
	idle_gov_init(&g);
	gov_idle(&g, 3 * MS, 10 * MS);
	KT_ASSERT_EQ(g.correction[3], IDLE_CORR_ONE);
	KT_ASSERT_EQ(idle_gov_predict(&g, 3 * MS), 3 * MS);
	/* 0 ns idles: ratio 0, the factor decays 7/8 per idle but stops at 1. */
	gov_idle(&g, 3 * MS, 0);
	KT_ASSERT_EQ(g.correction[3], 896);
	KT_ASSERT_EQ(g.history[1], 1);	/* a 0 ns idle is recorded as 1 ns */
	for (int i = 0; i < 80; i++)
		gov_idle(&g, 3 * MS, 0);
	KT_ASSERT_EQ(g.correction[3], 1);
	/* No timer: nothing to correct. */
	idle_gov_init(&g);
	gov_idle(&g, UINT64_MAX, 5 * US);
	for (int b = 0; b < IDLE_BUCKETS; b++)
		KT_ASSERT_EQ(g.correction[b], IDLE_CORR_ONE);
	/* A 0 ns expected sleep (timer already due) does not divide by zero. */
	gov_idle(&g, 0, 5 * US);
	KT_ASSERT_EQ(g.correction[0], IDLE_CORR_ONE);
}

KT_CASE(gov_buckets)
{
	/* Range bounds: 10 us, 100 us, 1 ms, 10 ms, 100 ms. */
	static const struct {
		uint64_t ns;
		unsigned int bucket;
	} cases[] = {
		{ 0, 0 }, { 9999, 0 }, { 10000, 1 }, { 99999, 1 }, { 100000, 2 }, { 999999, 2 },
		{ 1000000, 3 }, { 9999999, 3 }, { 10000000, 4 }, { 99999999, 4 }, { 100000000, 5 },
		{ 1000 * MS, 5 }, { 1ull << 40, 5 },
	};
	struct idle_gov g;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		idle_gov_init(&g);
		idle_gov_select(&g, gov_states, 3, cases[i].ns, IDLE_NO_LIMIT);
		KT_ASSERT_EQ(g.last_bucket, cases[i].bucket);
		if (cases[i].ns == 0)
			continue;
		idle_gov_reflect(&g, 0);	/* ratio 0 -> 7 * 1024 / 8 */
		for (unsigned int b = 0; b < IDLE_BUCKETS; b++)
			KT_ASSERT_EQ(g.correction[b], b == cases[i].bucket ? 896 : IDLE_CORR_ONE);
	}
}

KT_CASE(gov_prediction_large_sleep)
{
	struct idle_gov g;

	/* Correction applied without overflow to the largest finite sleeps. */
	idle_gov_init(&g);
	g.correction[5] = 512;
	KT_ASSERT(idle_gov_predict(&g, UINT64_MAX - 1) == (UINT64_MAX - 1) / 2);
	KT_ASSERT(idle_gov_predict(&g, 1ull << 63) == 1ull << 62);
	KT_ASSERT(idle_gov_predict(&g, UINT64_MAX) == UINT64_MAX);	/* no timer: uncorrected */
	g.correction[5] = IDLE_CORR_ONE;
	KT_ASSERT(idle_gov_predict(&g, UINT64_MAX - 1) == UINT64_MAX - 1);
}

KT_CASE(gov_typical_interval)
{
	struct idle_gov g;

	/* 8 regular idles of 800 us, no timer armed. */
	idle_gov_init(&g);
	for (int i = 0; i < 7; i++) {
		KT_ASSERT_EQ(gov_idle(&g, UINT64_MAX, 800 * US), 2);
		KT_ASSERT(idle_gov_predict(&g, UINT64_MAX) == UINT64_MAX);	/* too little history */
	}
	gov_idle(&g, UINT64_MAX, 800 * US);
	KT_ASSERT_EQ(idle_gov_predict(&g, UINT64_MAX), 800 * US);
	KT_ASSERT_EQ(idle_gov_select(&g, gov_states, 3, UINT64_MAX, IDLE_NO_LIMIT), 1);
	/* A far timer too; a nearer timer than the typical interval wins. */
	KT_ASSERT_EQ(idle_gov_predict(&g, 50 * MS), 800 * US);
	KT_ASSERT_EQ(idle_gov_select(&g, gov_states, 3, 50 * MS, IDLE_NO_LIMIT), 1);
	KT_ASSERT_EQ(idle_gov_predict(&g, 300 * US), 300 * US);
	KT_ASSERT_EQ(idle_gov_select(&g, gov_states, 3, 300 * US, IDLE_NO_LIMIT), 0);
	/* Nothing was corrected (no timer): only the typical interval acts. */
	for (int b = 0; b < IDLE_BUCKETS; b++)
		KT_ASSERT_EQ(g.correction[b], IDLE_CORR_ONE);

	/* Regular with jitter: 750 / 850 us, mean 800 us, stddev 50 us. */
	idle_gov_init(&g);
	for (int i = 0; i < 8; i++)
		gov_idle(&g, UINT64_MAX, i % 2 ? 850 * US : 750 * US);
	KT_ASSERT_EQ(idle_gov_predict(&g, UINT64_MAX), 800 * US);
	KT_ASSERT_EQ(idle_gov_select(&g, gov_states, 3, UINT64_MAX, IDLE_NO_LIMIT), 1);

	/* The history is a ring: 8 more idles of 3 ms replace it entirely. */
	for (int i = 0; i < 7; i++)
		gov_idle(&g, UINT64_MAX, 3 * MS);
	KT_ASSERT(idle_gov_predict(&g, UINT64_MAX) == UINT64_MAX);	/* 850 us, 7 x 3 ms: irregular */
	gov_idle(&g, UINT64_MAX, 3 * MS);
	KT_ASSERT_EQ(idle_gov_predict(&g, UINT64_MAX), 3 * MS);
	KT_ASSERT_EQ(idle_gov_select(&g, gov_states, 3, UINT64_MAX, IDLE_NO_LIMIT), 2);
}

KT_CASE(gov_irregular_history)
{
	struct idle_gov g;

	/* 200 / 1400 us: mean 800 us, stddev 600 us > mean / 6: no typical interval. */
	idle_gov_init(&g);
	for (int i = 0; i < 16; i++)
		gov_idle(&g, UINT64_MAX, i % 2 ? 1400 * US : 200 * US);
	KT_ASSERT(idle_gov_predict(&g, UINT64_MAX) == UINT64_MAX);
	KT_ASSERT_EQ(idle_gov_predict(&g, 50 * MS), 50 * MS);
	KT_ASSERT_EQ(idle_gov_select(&g, gov_states, 3, UINT64_MAX, IDLE_NO_LIMIT), 2);
	/* One outlier among regular idles is enough to break regularity. */
	idle_gov_init(&g);
	for (int i = 0; i < 8; i++)
		gov_idle(&g, UINT64_MAX, i == 3 ? 10 * MS : 800 * US);
	KT_ASSERT(idle_gov_predict(&g, UINT64_MAX) == UINT64_MAX);
}

KT_CASE(gov_typical_interval_boundary)
{
	struct idle_gov g;

	/* stddev exactly mean / 6 (600 us +- 100 us) is regular ... */
	idle_gov_init(&g);
	for (int i = 0; i < 8; i++)
		gov_idle(&g, UINT64_MAX, i % 2 ? 700 * US : 500 * US);
	KT_ASSERT_EQ(idle_gov_predict(&g, UINT64_MAX), 600 * US);
	/* ... 1 ns more is not. */
	idle_gov_init(&g);
	for (int i = 0; i < 8; i++)
		gov_idle(&g, UINT64_MAX, i % 2 ? 700 * US + 1 : 500 * US - 1);
	KT_ASSERT(idle_gov_predict(&g, UINT64_MAX) == UINT64_MAX);
	/* The mean is an integer mean: 8 x 1 ns and 0 ns idles (recorded as 1 ns). */
	idle_gov_init(&g);
	for (int i = 0; i < 8; i++)
		gov_idle(&g, UINT64_MAX, i % 2);
	KT_ASSERT_EQ(idle_gov_predict(&g, UINT64_MAX), 1);
	KT_ASSERT_EQ(idle_gov_select(&g, gov_states, 3, UINT64_MAX, IDLE_NO_LIMIT), 0);
}

/* ------------------------------------------------------------ rails */

/* Counting stub ops; they also record whether they ran under the rail's lock. */
static struct rail *stub_rail;
static int stub_downs, stub_ups, stub_down_id, stub_up_id;
static bool stub_unlocked;		/* an op ran without the rail lock held */
static enum rail_state stub_state_at_down;

static void stub_power_down(int rail)
{
	stub_downs++;
	stub_down_id = rail;
	stub_state_at_down = stub_rail->state;
	if (!spin_is_locked(&stub_rail->lock))
		stub_unlocked = true;
}

static void stub_power_up(int rail)
{
	stub_ups++;
	stub_up_id = rail;
	if (!spin_is_locked(&stub_rail->lock))
		stub_unlocked = true;
}

static const struct rail_ops stub_ops = { stub_power_down, stub_power_up };

static void stub_reset(struct rail *r)
{
	stub_rail = r;
	stub_downs = stub_ups = 0;
	stub_down_id = stub_up_id = -1;
	stub_unlocked = false;
	stub_state_at_down = RAIL_BUSY;
}

#define EXPECT_RESIDENCY(r, now, busy, idle, off)                              \
	do {                                                                   \
		uint64_t res_[3];                                              \
		rail_residency((r), (now), res_);                              \
		KT_ASSERT_EQ(res_[RAIL_BUSY], (busy));                         \
		KT_ASSERT_EQ(res_[RAIL_IDLE], (idle));                         \
		KT_ASSERT_EQ(res_[RAIL_OFF], (off));                           \
	} while (0)

KT_CASE(rail_init_state)
{
	static struct rail r;

	memset(&r, 0xa5, sizeof(r));
	rail_init(&r, MASK(0x1c), 1, 5000);
	KT_ASSERT_EQ(W(r.cpus), 0x1c);
	KT_ASSERT_EQ(W(r.idle), 0);
	KT_ASSERT_EQ(W(r.want_off), 0);
	KT_ASSERT_EQ(r.state, RAIL_BUSY);
	KT_ASSERT_EQ(r.since_ns, 5000);
	KT_ASSERT_EQ(r.nr_off, 0);
	KT_ASSERT_EQ(r.cluster, 1);
	KT_ASSERT(!spin_is_locked(&r.lock));
	EXPECT_RESIDENCY(&r, 5000, 0, 0, 0);
	EXPECT_RESIDENCY(&r, 7500, 2500, 0, 0);
	EXPECT_RESIDENCY(&r, 4000, 0, 0, 0);	/* a clock before the start adds nothing */
}

/*
 * Rail of CPUs 2-4 (the qemu-tc2 A7 rail), id 5. Times in ns from a fake
 * clock starting at 0.
 */
KT_CASE(rail_last_man_first_man)
{
	static struct rail r;

	rail_init(&r, MASK(0x1c), 1, 0);
	stub_reset(&r);
	/* Two CPUs ask for the domain state: the third still runs. */
	KT_ASSERT(!rail_cpu_idle(&r, 5, 2, true, 10, &stub_ops));
	KT_ASSERT(!rail_cpu_idle(&r, 5, 3, true, 20, &stub_ops));
	KT_ASSERT_EQ(r.state, RAIL_BUSY);
	KT_ASSERT_EQ(W(r.idle), 0x0c);
	KT_ASSERT_EQ(W(r.want_off), 0x0c);
	/* The last one only in WFI: all idle, but the rail stays on. */
	KT_ASSERT(!rail_cpu_idle(&r, 5, 4, false, 30, &stub_ops));
	KT_ASSERT_EQ(r.state, RAIL_IDLE);
	KT_ASSERT_EQ(W(r.idle), 0x1c);
	KT_ASSERT_EQ(W(r.want_off), 0x0c);
	KT_ASSERT_EQ(stub_downs, 0);
	KT_ASSERT_EQ(r.nr_off, 0);
	/* It wakes: not a first man (the rail was never off). */
	KT_ASSERT(!rail_cpu_busy(&r, 5, 4, 40, &stub_ops));
	KT_ASSERT_EQ(r.state, RAIL_BUSY);
	KT_ASSERT_EQ(stub_ups, 0);
	/* Now it goes down asking for the domain state too: last man. */
	KT_ASSERT(rail_cpu_idle(&r, 5, 4, true, 50, &stub_ops));
	KT_ASSERT_EQ(r.state, RAIL_OFF);
	KT_ASSERT_EQ(stub_downs, 1);
	KT_ASSERT_EQ(stub_down_id, 5);
	KT_ASSERT_EQ(stub_state_at_down, RAIL_OFF);
	KT_ASSERT_EQ(r.nr_off, 1);
	/* The first to wake powers the rail up, exactly once. */
	KT_ASSERT(rail_cpu_busy(&r, 5, 3, 60, &stub_ops));
	KT_ASSERT_EQ(stub_ups, 1);
	KT_ASSERT_EQ(stub_up_id, 5);
	KT_ASSERT_EQ(r.state, RAIL_BUSY);
	KT_ASSERT_EQ(W(r.idle), 0x14);
	KT_ASSERT_EQ(W(r.want_off), 0x14);
	KT_ASSERT(!rail_cpu_busy(&r, 5, 2, 70, &stub_ops));
	KT_ASSERT(!rail_cpu_busy(&r, 5, 4, 80, &stub_ops));
	KT_ASSERT_EQ(stub_ups, 1);
	KT_ASSERT_EQ(W(r.idle), 0);
	KT_ASSERT_EQ(W(r.want_off), 0);
	KT_ASSERT(!stub_unlocked);
	/* busy 0-30, 40-50, 60-100; idle 30-40; off 50-60. */
	EXPECT_RESIDENCY(&r, 100, 80, 10, 10);
	EXPECT_RESIDENCY(&r, 100, 80, 10, 10);	/* reading changes nothing */
	EXPECT_RESIDENCY(&r, 80, 60, 10, 10);	/* up to the last transition */
}

KT_CASE(rail_domain_request_cleared_on_wake)
{
	static struct rail r;

	rail_init(&r, MASK(0x1c), 1, 0);
	stub_reset(&r);
	/* CPU 2 asked for the domain state, woke, then went to WFI only. */
	KT_ASSERT(!rail_cpu_idle(&r, 1, 2, true, 10, &stub_ops));
	KT_ASSERT(!rail_cpu_busy(&r, 1, 2, 20, &stub_ops));
	KT_ASSERT(!rail_cpu_idle(&r, 1, 2, false, 30, &stub_ops));
	KT_ASSERT(!rail_cpu_idle(&r, 1, 3, true, 40, &stub_ops));
	KT_ASSERT(!rail_cpu_idle(&r, 1, 4, true, 50, &stub_ops));
	KT_ASSERT_EQ(r.state, RAIL_IDLE);
	KT_ASSERT_EQ(W(r.want_off), 0x18);
	KT_ASSERT_EQ(stub_downs, 0);
	/* CPU 2 wakes and goes down asking for it: now the rail goes off. */
	KT_ASSERT(!rail_cpu_busy(&r, 1, 2, 60, &stub_ops));
	KT_ASSERT(rail_cpu_idle(&r, 1, 2, true, 70, &stub_ops));
	KT_ASSERT_EQ(stub_downs, 1);
	KT_ASSERT_EQ(r.nr_off, 1);
	EXPECT_RESIDENCY(&r, 100, 60, 10, 30);
}

KT_CASE(rail_counts_match)
{
	static struct rail r;
	uint64_t now = 1000, busy = 0, idle = 0, off = 0;

	rail_init(&r, MASK(0x3), 0, now);
	stub_reset(&r);
	/* 50 cycles: both down with domain (off), then CPU 1 in WFI only (idle). */
	for (int i = 0; i < 50; i++) {
		KT_ASSERT(!rail_cpu_idle(&r, 0, i % 2, true, now += 7, &stub_ops));
		busy += 7;
		KT_ASSERT(rail_cpu_idle(&r, 0, 1 - i % 2, true, now += 11, &stub_ops));
		busy += 11;
		KT_ASSERT(rail_cpu_busy(&r, 0, 1, now += 13, &stub_ops));
		off += 13;
		KT_ASSERT(!rail_cpu_busy(&r, 0, 0, now += 3, &stub_ops));
		busy += 3;
		KT_ASSERT(!rail_cpu_idle(&r, 0, 0, true, now += 5, &stub_ops));
		busy += 5;
		KT_ASSERT(!rail_cpu_idle(&r, 0, 1, false, now += 17, &stub_ops));
		busy += 17;
		KT_ASSERT(!rail_cpu_busy(&r, 0, 0, now += 19, &stub_ops));
		idle += 19;
		KT_ASSERT(!rail_cpu_busy(&r, 0, 1, now += 2, &stub_ops));
		busy += 2;
	}
	KT_ASSERT_EQ(stub_downs, 50);
	KT_ASSERT_EQ(stub_ups, 50);
	KT_ASSERT_EQ(r.nr_off, 50);
	KT_ASSERT(!stub_unlocked);
	EXPECT_RESIDENCY(&r, now, busy, idle, off);
	KT_ASSERT_EQ(busy + idle + off, now - 1000);
	KT_ASSERT_EQ(off, 50 * 13);
	KT_ASSERT_EQ(idle, 50 * 19);
	/* The rail as it is: off at the end means one power_down more than power_up. */
	KT_ASSERT(!rail_cpu_idle(&r, 0, 0, true, now + 100, &stub_ops));
	KT_ASSERT(rail_cpu_idle(&r, 0, 1, true, now + 200, &stub_ops));
	KT_ASSERT_EQ(stub_downs, stub_ups + 1);
	EXPECT_RESIDENCY(&r, now + 1000, busy + 200, idle, off + 800);
}

KT_CASE(rail_single_cpu_and_null_ops)
{
	static struct rail r;

	/* A rail of one CPU: each domain idle is a last man, each wake a first man. */
	rail_init(&r, MASK(0x1), 0, 0);
	stub_reset(&r);
	KT_ASSERT(rail_cpu_idle(&r, 2, 0, true, 100, &stub_ops));
	KT_ASSERT(rail_cpu_busy(&r, 2, 0, 300, &stub_ops));
	KT_ASSERT(!rail_cpu_idle(&r, 2, 0, false, 400, &stub_ops));
	KT_ASSERT_EQ(r.state, RAIL_IDLE);
	KT_ASSERT(!rail_cpu_busy(&r, 2, 0, 1000, &stub_ops));
	KT_ASSERT_EQ(stub_downs, 1);
	KT_ASSERT_EQ(stub_ups, 1);
	EXPECT_RESIDENCY(&r, 1000, 200, 600, 200);
	/* No ops (or no hooks): same state machine, nothing called. */
	rail_init(&r, MASK(0x80000000u), 3, 0);
	KT_ASSERT(rail_cpu_idle(&r, 0, 31, true, 10, NULL));
	KT_ASSERT_EQ(r.state, RAIL_OFF);
	KT_ASSERT_EQ(r.nr_off, 1);
	KT_ASSERT(rail_cpu_busy(&r, 0, 31, 20, NULL));
	/* CPUs past the first 32 (the host's and a simulator's machines): the same machine. */
	{
		cpumask_t far = { { 0 } };
		struct rail fr;

		cpumask_set(&far, 40);
		cpumask_set(&far, CONFIG_NR_CPUS - 1);
		rail_init(&fr, &far, 5, 0);
		KT_ASSERT(cpumask_equal(&fr.cpus, &far));
		KT_ASSERT(!rail_cpu_idle(&fr, 0, 40, true, 10, NULL));
		KT_ASSERT_EQ(fr.state, RAIL_BUSY);
		KT_ASSERT(rail_cpu_idle(&fr, 0, CONFIG_NR_CPUS - 1, true, 20, NULL));
		KT_ASSERT_EQ(fr.state, RAIL_OFF);
		KT_ASSERT(cpumask_equal(&fr.idle, &far) && cpumask_equal(&fr.want_off, &far));
		KT_ASSERT(rail_cpu_busy(&fr, 0, 40, 30, NULL));
		KT_ASSERT(!cpumask_test(&fr.idle, 40) && !cpumask_test(&fr.want_off, 40));
		KT_ASSERT_EQ(cpumask_weight(&fr.idle), 1);
		KT_ASSERT_EQ(cpumask_weight(&fr.want_off), 1);
	}
	{
		static const struct rail_ops none = { NULL, NULL };

		KT_ASSERT(rail_cpu_idle(&r, 0, 31, true, 30, &none));
		KT_ASSERT(rail_cpu_busy(&r, 0, 31, 40, &none));
	}
	KT_ASSERT_EQ(r.nr_off, 2);
	EXPECT_RESIDENCY(&r, 50, 30, 0, 20);
}

KT_CASE(rail_clock_going_backwards)
{
	static struct rail r;

	/* Stale timestamps (taken before the lock) add nothing and never go negative. */
	rail_init(&r, MASK(0x3), 0, 100);
	KT_ASSERT(!rail_cpu_idle(&r, 0, 0, true, 150, NULL));
	KT_ASSERT(rail_cpu_idle(&r, 0, 1, true, 140, NULL));	/* older than the last stretch */
	KT_ASSERT(rail_cpu_busy(&r, 0, 1, 200, NULL));
	EXPECT_RESIDENCY(&r, 200, 50, 0, 50);
	EXPECT_RESIDENCY(&r, 210, 60, 0, 50);
}

/* --- two CPUs racing on one rail --- */

#define RACE_ITERS 100000
/* Under load the threads may rarely overlap: go on (up to 50x) until this many power-downs. */
#define RACE_MIN_DOWNS 1000
#define RACE_RAIL_ID 3

static struct rail race_rail;
static uint64_t race_clock;		/* fake monotonic clock: a shared counter */
static int race_off;			/* the stub's idea of the rail: powered off */
static uint64_t race_downs, race_ups;
static int race_mode[2];		/* per CPU: 0 busy, 1 idle in WFI, 2 idle with domain */
static int race_err_set;
static char race_err[256];
static pthread_barrier_t race_barrier;

__attribute__((format(printf, 1, 2)))
static void race_fail(const char *fmt, ...)
{
	va_list ap;

	if (__atomic_exchange_n(&race_err_set, 1, __ATOMIC_ACQ_REL))
		return;
	va_start(ap, fmt);
	vsnprintf(race_err, sizeof(race_err), fmt, ap);
	va_end(ap);
}

static uint64_t race_tick(void)
{
	return __atomic_add_fetch(&race_clock, 1, __ATOMIC_SEQ_CST);
}

/* The ops run under the rail lock: check the rail there. */
static void race_power_down(int rail)
{
	struct rail *r = &race_rail;

	if (rail != RACE_RAIL_ID)
		race_fail("power_down(%d), expected rail %d", rail, RACE_RAIL_ID);
	if (!spin_is_locked(&r->lock))
		race_fail("power_down without the rail lock");
	if (W(r->idle) != 0x3 || W(r->want_off) != 0x3 || r->state != RAIL_OFF)
		race_fail("power_down with idle 0x%x want_off 0x%x state %d", W(r->idle), W(r->want_off), r->state);
	if (__atomic_load_n(&race_mode[0], __ATOMIC_ACQUIRE) != 2 ||
	    __atomic_load_n(&race_mode[1], __ATOMIC_ACQUIRE) != 2)
		race_fail("power_down while CPU modes are %d, %d", race_mode[0], race_mode[1]);
	if (__atomic_load_n(&race_off, __ATOMIC_ACQUIRE))
		race_fail("power_down of a rail already off");
	__atomic_store_n(&race_off, 1, __ATOMIC_RELEASE);
	__atomic_add_fetch(&race_downs, 1, __ATOMIC_RELAXED);
}

static void race_power_up(int rail)
{
	struct rail *r = &race_rail;

	if (rail != RACE_RAIL_ID)
		race_fail("power_up(%d), expected rail %d", rail, RACE_RAIL_ID);
	if (!spin_is_locked(&r->lock))
		race_fail("power_up without the rail lock");
	if (!__atomic_load_n(&race_off, __ATOMIC_ACQUIRE))
		race_fail("power_up without a power_down before it");
	__atomic_store_n(&race_off, 0, __ATOMIC_RELEASE);
	__atomic_add_fetch(&race_ups, 1, __ATOMIC_RELAXED);
}

static const struct rail_ops race_ops = { race_power_down, race_power_up };

struct racer {
	int cpu;
	uint64_t iters, last_men, first_men;
	struct cpu_idle ci;
};

static void race_delay(unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		__asm__ volatile("" ::: "memory");
}

static void *racer_main(void *arg)
{
	struct racer *me = arg;
	uint32_t rnd = 0x9e3779b9u * (uint32_t)(me->cpu + 1);

	pthread_barrier_wait(&race_barrier);
	for (uint64_t i = 0; i < 50ull * RACE_ITERS && !__atomic_load_n(&race_err_set, __ATOMIC_RELAXED); i++) {
		bool domain;
		uint64_t now;

		if (i >= RACE_ITERS && __atomic_load_n(&race_downs, __ATOMIC_RELAXED) >= RACE_MIN_DOWNS)
			break;
		me->iters++;

		rnd ^= rnd << 13;
		rnd ^= rnd >> 17;
		rnd ^= rnd << 5;
		domain = (rnd & 3) != 0;	/* 3 of 4 idles ask for the domain state */
		__atomic_store_n(&race_mode[me->cpu], domain ? 2 : 1, __ATOMIC_RELEASE);
		now = race_tick();
		cpu_idle_account_enter(&me->ci, domain ? 1 : 0, now);
		if (rail_cpu_idle(&race_rail, RACE_RAIL_ID, me->cpu, domain, now, &race_ops))
			me->last_men++;
		/* Idle in WFI keeps the rail on until this CPU wakes. */
		if (!domain && __atomic_load_n(&race_off, __ATOMIC_ACQUIRE))
			race_fail("cpu%d idle in WFI but the rail is off", me->cpu);
		race_delay((rnd >> 8) & 255);
		now = race_tick();
		if (rail_cpu_busy(&race_rail, RACE_RAIL_ID, me->cpu, now, &race_ops))
			me->first_men++;
		cpu_idle_account_exit(&me->ci, now);
		/* A running CPU: the rail cannot be off. */
		if (__atomic_load_n(&race_off, __ATOMIC_ACQUIRE))
			race_fail("cpu%d running but the rail is off", me->cpu);
		__atomic_store_n(&race_mode[me->cpu], 0, __ATOMIC_RELEASE);
		race_delay((rnd >> 16) & 31);
	}
	return NULL;
}

KT_CASE(rail_race_two_cpus)
{
	static struct racer racers[2];
	pthread_t th[2];
	uint64_t res[3], end;

	rail_init(&race_rail, MASK(0x3), 0, 0);
	race_clock = 0;
	race_off = 0;
	race_downs = race_ups = 0;
	race_err_set = 0;
	for (int c = 0; c < 2; c++) {
		memset(&racers[c], 0, sizeof(racers[c]));
		racers[c].cpu = c;
		racers[c].ci.nr_states = 2;
		racers[c].ci.cur_state = -1;
		racers[c].ci.since_ns = 0;
	}
	KT_ASSERT(pthread_barrier_init(&race_barrier, NULL, 2) == 0);
	for (int c = 0; c < 2; c++)
		KT_ASSERT(pthread_create(&th[c], NULL, racer_main, &racers[c]) == 0);
	for (int c = 0; c < 2; c++)
		pthread_join(th[c], NULL);
	pthread_barrier_destroy(&race_barrier);
	KT_ASSERT_MSG(!race_err_set, "%s", race_err);
	/* Both CPUs run at the end: every power_down was matched by one power_up. */
	KT_ASSERT_EQ(race_rail.state, RAIL_BUSY);
	KT_ASSERT_EQ(W(race_rail.idle), 0);
	KT_ASSERT_EQ(race_off, 0);
	KT_ASSERT_EQ(race_downs, race_ups);
	KT_ASSERT_EQ(race_downs, race_rail.nr_off);
	KT_ASSERT_EQ(racers[0].last_men + racers[1].last_men, race_downs);
	KT_ASSERT_EQ(racers[0].first_men + racers[1].first_men, race_ups);
	KT_ASSERT_MSG(race_downs >= RACE_MIN_DOWNS, "only %llu power-downs in %llu + %llu iterations",
		      (unsigned long long)race_downs, (unsigned long long)racers[0].iters,
		      (unsigned long long)racers[1].iters);
	KT_ASSERT(racers[0].iters >= RACE_ITERS && racers[1].iters >= RACE_ITERS);
	/* Residency adds up to the elapsed fake time, to the tick. */
	end = race_tick();
	rail_residency(&race_rail, end, res);
	KT_ASSERT_EQ(res[RAIL_BUSY] + res[RAIL_IDLE] + res[RAIL_OFF], end);
	for (int c = 0; c < 2; c++) {
		const struct cpu_idle *ci = &racers[c].ci;

		KT_ASSERT_EQ(ci->usage[0] + ci->usage[1], racers[c].iters);
		KT_ASSERT_EQ(ci->cur_state, -1);
		KT_ASSERT_EQ(ci->busy_ns + ci->state_ns[0] + ci->state_ns[1], ci->since_ns);
	}
}

/* --- a CPU wakes while the last man is inside power_down --- */

static struct rail pd_rail;
static int pd_entered, pd_done, pd_b_calling, pd_b_returned;
static int pd_queued;			/* B was seen waiting for the lock */
static int pd_b_returned_early;		/* B got through while power_down ran */
static int pd_up_before_down_done;
static int pd_downs, pd_ups;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void slow_power_down(int rail)
{
	uint64_t t0;

	(void)rail;
	pd_downs++;
	__atomic_store_n(&pd_entered, 1, __ATOMIC_RELEASE);
	/* Wait for B to call rail_cpu_busy and take a ticket on the lock we hold. */
	t0 = mono_ns();
	while (!__atomic_load_n(&pd_b_calling, __ATOMIC_ACQUIRE) && mono_ns() - t0 < 5000 * MS)
		;
	while (mono_ns() - t0 < 5000 * MS) {
		uint16_t waiting = (uint16_t)(__atomic_load_n(&pd_rail.lock.next, __ATOMIC_ACQUIRE) -
					      __atomic_load_n(&pd_rail.lock.owner, __ATOMIC_ACQUIRE));

		if (waiting == 2) {
			pd_queued = 1;
			break;
		}
	}
	/* And keep it waiting a little. */
	t0 = mono_ns();
	while (mono_ns() - t0 < 20 * MS)
		if (__atomic_load_n(&pd_b_returned, __ATOMIC_ACQUIRE))
			pd_b_returned_early = 1;
	__atomic_store_n(&pd_done, 1, __ATOMIC_RELEASE);
}

static void slow_power_up(int rail)
{
	(void)rail;
	pd_ups++;
	if (!__atomic_load_n(&pd_done, __ATOMIC_ACQUIRE))
		pd_up_before_down_done = 1;
}

static const struct rail_ops slow_ops = { slow_power_down, slow_power_up };

static void *last_man_main(void *arg)
{
	bool *last = arg;

	*last = rail_cpu_idle(&pd_rail, 0, 0, true, 20, &slow_ops);
	return NULL;
}

KT_CASE(rail_wake_during_power_down)
{
	pthread_t a;
	bool a_last = false, b_first;
	uint64_t t0;

	rail_init(&pd_rail, MASK(0x3), 0, 0);
	pd_entered = pd_done = pd_b_calling = pd_b_returned = 0;
	pd_queued = pd_b_returned_early = pd_up_before_down_done = 0;
	pd_downs = pd_ups = 0;
	/* B (CPU 1, this thread) is idle asking for the rail off; A (CPU 0) becomes the last man. */
	KT_ASSERT(!rail_cpu_idle(&pd_rail, 0, 1, true, 10, &slow_ops));
	KT_ASSERT(pthread_create(&a, NULL, last_man_main, &a_last) == 0);
	t0 = mono_ns();
	while (!__atomic_load_n(&pd_entered, __ATOMIC_ACQUIRE) && mono_ns() - t0 < 5000 * MS)
		;
	if (!__atomic_load_n(&pd_entered, __ATOMIC_ACQUIRE)) {
		pthread_join(a, NULL);
		KT_ASSERT_MSG(0, "the last man never called power_down");
	}
	/* B wakes while A is inside power_down. */
	__atomic_store_n(&pd_b_calling, 1, __ATOMIC_RELEASE);
	b_first = rail_cpu_busy(&pd_rail, 0, 1, 30, &slow_ops);
	__atomic_store_n(&pd_b_returned, 1, __ATOMIC_RELEASE);
	pthread_join(a, NULL);
	KT_ASSERT(a_last);
	KT_ASSERT_MSG(pd_queued, "B never waited on the rail lock during power_down");
	KT_ASSERT_MSG(!pd_b_returned_early, "B's rail_cpu_busy returned while power_down ran");
	KT_ASSERT_MSG(!pd_up_before_down_done, "power_up ran before power_down finished");
	KT_ASSERT(b_first);	/* B found the rail off: the first man */
	KT_ASSERT_EQ(pd_downs, 1);
	KT_ASSERT_EQ(pd_ups, 1);
	KT_ASSERT_EQ(pd_rail.nr_off, 1);
	KT_ASSERT_EQ(pd_rail.state, RAIL_BUSY);
	KT_ASSERT_EQ(W(pd_rail.idle), 0x1);	/* A is still idle */
	KT_ASSERT_EQ(W(pd_rail.want_off), 0x1);
	KT_ASSERT(!spin_is_locked(&pd_rail.lock));
	/* busy 0-20, off 20-30, busy 30-40 */
	EXPECT_RESIDENCY(&pd_rail, 40, 30, 0, 10);
}

/* ------------------------------------------------------------ per-CPU residency */

KT_CASE(cpu_idle_accounting)
{
	struct cpu_idle ci;

	memset(&ci, 0, sizeof(ci));
	ci.nr_states = 3;
	ci.cur_state = -1;
	ci.since_ns = 1000;
	cpu_idle_account_enter(&ci, 1, 1500);
	KT_ASSERT_EQ(ci.cur_state, 1);
	KT_ASSERT_EQ(ci.busy_ns, 500);
	KT_ASSERT_EQ(ci.usage[1], 1);
	KT_ASSERT_EQ(ci.state_ns[1], 0);
	cpu_idle_account_exit(&ci, 4500);
	KT_ASSERT_EQ(ci.cur_state, -1);
	KT_ASSERT_EQ(ci.state_ns[1], 3000);
	KT_ASSERT_EQ(ci.since_ns, 4500);
	cpu_idle_account_enter(&ci, 2, 5000);
	cpu_idle_account_exit(&ci, 15000);
	cpu_idle_account_enter(&ci, 0, 15000);	/* no busy time in between */
	cpu_idle_account_exit(&ci, 15200);
	cpu_idle_account_enter(&ci, 1, 16000);
	cpu_idle_account_exit(&ci, 16001);
	KT_ASSERT_EQ(ci.busy_ns, 500 + 500 + 800);
	KT_ASSERT_EQ(ci.state_ns[0], 200);
	KT_ASSERT_EQ(ci.state_ns[1], 3001);
	KT_ASSERT_EQ(ci.state_ns[2], 10000);
	KT_ASSERT_EQ(ci.usage[0], 1);
	KT_ASSERT_EQ(ci.usage[1], 2);
	KT_ASSERT_EQ(ci.usage[2], 1);
	KT_ASSERT_EQ(ci.state_ns[3], 0);
	KT_ASSERT_EQ(ci.busy_ns + ci.state_ns[0] + ci.state_ns[1] + ci.state_ns[2], 16001 - 1000);
	/* A stale clock adds nothing. */
	cpu_idle_account_enter(&ci, 2, 16000);
	cpu_idle_account_exit(&ci, 15999);
	KT_ASSERT_EQ(ci.busy_ns, 1800);
	KT_ASSERT_EQ(ci.state_ns[2], 10000);
	KT_ASSERT_EQ(ci.usage[2], 2);
}

/* ------------------------------------------------------------ DT */

/* A DTB read into memory and opened. */

static struct dtb dtb;
static struct topology topo;
static struct cpu_idle cis[TOPO_MAX_CPUS];
static struct rail rails[IDLE_MAX_RAILS];

static bool load_dtb(const char *path, char *why, size_t len)
{
	return dtb_load(path, &dtb, why, len);
}

/* Load @path and build its topology (must succeed). */
#define LOAD_TOPO(path)                                                        \
	do {                                                                   \
		char why_[300] = "";                                           \
		KT_ASSERT_MSG(load_dtb((path), why_, sizeof(why_)), "%s", why_); \
		KT_ASSERT_MSG(topology_parse_dt(&dtb.fdt, &topo, why_, sizeof(why_)) == 0, \
			      "%s: topology_parse_dt: %s", (path), why_);      \
		topology_build(&topo, &policy_rails);                             \
	} while (0)

/* idle_parse_dt of @path must fail with exactly @msg. */
#define EXPECT_IDLE_ERROR(path, msg)                                           \
	do {                                                                   \
		char err_[200] = "";                                           \
		LOAD_TOPO(path);                                               \
		KT_ASSERT_EQ(idle_parse_dt(&dtb.fdt, &topo, cis, rails, 0, err_, sizeof(err_)), -1); \
		KT_ASSERT_STREQ(err_, (msg));                                  \
	} while (0)

#define EXPECT_STATE(st, nm, entry_us, exit_us, min_us, dom, tstop)            \
	do {                                                                   \
		KT_ASSERT_STREQ((st)->name, (nm));                             \
		KT_ASSERT_EQ((st)->entry_ns, (entry_us) * US);                 \
		KT_ASSERT_EQ((st)->exit_ns, (exit_us) * US);                   \
		KT_ASSERT_EQ((st)->min_residency_ns, (min_us) * US);           \
		KT_ASSERT_EQ((st)->domain, (dom));                             \
		KT_ASSERT_EQ((st)->timer_stop, (tstop));                       \
	} while (0)

/* The fresh per-CPU state idle_parse_dt leaves. */
#define EXPECT_FRESH_CPU(c, now)                                               \
	do {                                                                   \
		KT_ASSERT_EQ((c)->cur_state, -1);                              \
		KT_ASSERT_EQ((c)->since_ns, (now));                            \
		KT_ASSERT_EQ((c)->busy_ns, 0);                                 \
		for (int s_ = 0; s_ < IDLE_MAX_STATES; s_++) {                 \
			KT_ASSERT_EQ((c)->state_ns[s_], 0);                    \
			KT_ASSERT_EQ((c)->usage[s_], 0);                       \
		}                                                              \
		for (int b_ = 0; b_ < IDLE_BUCKETS; b_++)                      \
			KT_ASSERT_EQ((c)->gov.correction[b_], IDLE_CORR_ONE);  \
		KT_ASSERT_EQ((c)->gov.history[0], 0);                          \
	} while (0)

#define EXPECT_RAIL(r, mask, clus, now)                                        \
	do {                                                                   \
		KT_ASSERT_EQ(W((r)->cpus), (mask));                               \
		KT_ASSERT_EQ((r)->cluster, (clus));                            \
		KT_ASSERT_EQ((r)->state, RAIL_BUSY);                           \
		KT_ASSERT_EQ(W((r)->idle), 0);                                    \
		KT_ASSERT_EQ(W((r)->want_off), 0);                                \
		KT_ASSERT_EQ((r)->nr_off, 0);                                  \
		KT_ASSERT_EQ((r)->since_ns, (now));                            \
		KT_ASSERT(!spin_is_locked(&(r)->lock));                        \
	} while (0)

/* Garbage in the outputs: the parser must fill everything itself. */
static void scribble(void)
{
	memset(cis, 0x5a, sizeof(cis));
	memset(rails, 0xa5, sizeof(rails));
}

KT_CASE(dt_qemu_tc2)
{
	char err[200] = "";

	LOAD_TOPO(BOARD("qemu-tc2"));
	scribble();
	KT_ASSERT_EQ(topo.nr_cpus, 5);
	KT_ASSERT_MSG(idle_parse_dt(&dtb.fdt, &topo, cis, rails, 777, err, sizeof(err)) == 2,
		      "idle_parse_dt: %s", err);
	for (int cpu = 0; cpu < 5; cpu++) {
		const struct cpu_idle *c = &cis[cpu];

		KT_ASSERT_EQ(c->nr_states, 2);
		EXPECT_STATE(&c->states[0], "wfi", 0, 0, 0, false, false);
		if (cpu < 2)
			EXPECT_STATE(&c->states[1], "cluster-sleep-big", 1000, 700, 2000, true, true);
		else
			EXPECT_STATE(&c->states[1], "cluster-sleep-little", 1000, 500, 2500, true, true);
		KT_ASSERT_EQ(c->rail, cpu < 2 ? 0 : 1);
		EXPECT_FRESH_CPU(c, 777);
	}
	EXPECT_RAIL(&rails[0], 0x3, 0, 777);
	EXPECT_RAIL(&rails[1], 0x1c, 1, 777);
}

KT_CASE(dt_vexpress_a9)
{
	char err[200] = "";

	LOAD_TOPO(BOARD("vexpress-a9"));
	scribble();
	KT_ASSERT_EQ(topo.nr_cpus, 4);
	KT_ASSERT_MSG(idle_parse_dt(&dtb.fdt, &topo, cis, rails, 0, err, sizeof(err)) == 1,
		      "idle_parse_dt: %s", err);
	for (int cpu = 0; cpu < 4; cpu++) {
		KT_ASSERT_EQ(cis[cpu].nr_states, 1);
		EXPECT_STATE(&cis[cpu].states[0], "wfi", 0, 0, 0, false, false);
		KT_ASSERT_EQ(cis[cpu].rail, 0);
		EXPECT_FRESH_CPU(&cis[cpu], 0);
	}
	EXPECT_RAIL(&rails[0], 0xf, 0, 0);
}

KT_CASE(dt_fixture_states_and_rails)
{
	char err[200] = "";

	LOAD_TOPO(FIXTURE("idle-ok"));
	scribble();
	KT_ASSERT_EQ(topo.nr_cpus, 3);
	KT_ASSERT_MSG(idle_parse_dt(&dtb.fdt, &topo, cis, rails, 42, err, sizeof(err)) == 2,
		      "idle_parse_dt: %s", err);
	/* cpu0: all four states, shallow to deep, the domain state last. */
	KT_ASSERT_EQ(cis[0].nr_states, 4);
	EXPECT_STATE(&cis[0].states[0], "wfi", 0, 0, 0, false, false);
	EXPECT_STATE(&cis[0].states[1], "core-retention", 20, 40, 100, false, false);
	EXPECT_STATE(&cis[0].states[2], "core-power-down", 150, 250, 800, false, true);
	EXPECT_STATE(&cis[0].states[3], "cluster-power-down", 600, 900, 3000, true, true);
	/* cpu1: same rail, fewer core states, the same domain state. */
	KT_ASSERT_EQ(cis[1].nr_states, 3);
	EXPECT_STATE(&cis[1].states[1], "core-retention", 20, 40, 100, false, false);
	EXPECT_STATE(&cis[1].states[2], "cluster-power-down", 600, 900, 3000, true, true);
	/* cpu2: system rail, a core state, no domain state. */
	KT_ASSERT_EQ(cis[2].nr_states, 2);
	EXPECT_STATE(&cis[2].states[0], "wfi", 0, 0, 0, false, false);
	EXPECT_STATE(&cis[2].states[1], "core-power-down", 150, 250, 800, false, true);
	KT_ASSERT_EQ(cis[0].rail, 0);
	KT_ASSERT_EQ(cis[1].rail, 0);
	KT_ASSERT_EQ(cis[2].rail, 1);
	for (int cpu = 0; cpu < 3; cpu++)
		EXPECT_FRESH_CPU(&cis[cpu], 42);
	EXPECT_RAIL(&rails[0], 0x3, 0, 42);
	EXPECT_RAIL(&rails[1], 0x4, 1, 42);
	/* The parsed states drive the governor. */
	KT_ASSERT_EQ(idle_gov_select(&cis[0].gov, cis[0].states, cis[0].nr_states, 1300 * US, IDLE_NO_LIMIT), 2);
	KT_ASSERT_EQ(idle_gov_select(&cis[0].gov, cis[0].states, cis[0].nr_states, 200 * US, IDLE_NO_LIMIT), 1);
	KT_ASSERT_EQ(idle_gov_select(&cis[0].gov, cis[0].states, cis[0].nr_states, UINT64_MAX, 899 * US), 2);
}

KT_CASE(dt_errors)
{
	EXPECT_IDLE_ERROR(FIXTURE("idle-err-compat"),
			  "idle state core-sleep is not compatible with arm,idle-state");
	EXPECT_IDLE_ERROR(FIXTURE("idle-err-noexit"),
			  "idle state core-sleep: missing or malformed exit-latency-us");
	EXPECT_IDLE_ERROR(FIXTURE("idle-err-badmin"),
			  "idle state core-sleep: missing or malformed min-residency-us");
	EXPECT_IDLE_ERROR(FIXTURE("idle-err-phandle"),
			  "cpu@1: cpu-idle-states entry 1 (phandle 0x99) names no node");
	EXPECT_IDLE_ERROR(FIXTURE("idle-err-domphandle"),
			  "power-domain-cluster0: domain-idle-states entry 0 (phandle 0x77) names no node");
	EXPECT_IDLE_ERROR(FIXTURE("idle-err-notlist"), "cpu@0: cpu-idle-states is not a list of phandles");
	EXPECT_IDLE_ERROR(FIXTURE("idle-err-toomany"), "cpu@0: more than 3 idle states");
	EXPECT_IDLE_ERROR(FIXTURE("idle-err-toomany-domain"), "power-domain-cluster0: more than 3 idle states");
	EXPECT_IDLE_ERROR(FIXTURE("idle-err-order"), "cpu@0: idle state state-1 is listed after a deeper one");
	EXPECT_IDLE_ERROR(FIXTURE("idle-err-order-domain"),
			  "power-domain-cluster0: idle state state-2 is listed after a deeper one");
	EXPECT_IDLE_ERROR(FIXTURE("idle-err-rails"), "idle: more than 8 power rails");
}

KT_CASE(dt_errors_from_topology)
{
	char err[200] = "";

	/* More CPUs than the DT has cpu nodes. */
	LOAD_TOPO(FIXTURE("idle-ok"));
	topo.nr_cpus = 4;
	topo.cpu[3] = topo.cpu[2];
	KT_ASSERT_EQ(idle_parse_dt(&dtb.fdt, &topo, cis, rails, 0, err, sizeof(err)), -1);
	KT_ASSERT_STREQ(err, "idle: cpu3 has no cpu node");
	/* Rails are cpumasks: 33 CPUs are not refused for their number, only for the missing cpu nodes. */
	LOAD_TOPO(FIXTURE("idle-ok"));
	topo.nr_cpus = 33;
	KT_ASSERT_EQ(idle_parse_dt(&dtb.fdt, &topo, cis, rails, 0, err, sizeof(err)), -1);
	KT_ASSERT_STREQ(err, "idle: cpu3 has no cpu node");
	/* The message is cut to the buffer, NUL-terminated. */
	{
		char small[12];

		memset(small, 'x', sizeof(small));
		KT_ASSERT_EQ(idle_parse_dt(&dtb.fdt, &topo, cis, rails, 0, small, sizeof(small)), -1);
		KT_ASSERT_STREQ(small, "idle: cpu3 ");
	}
}

KT_CASE(dt_rail_states_agree)
{
	char err[200] = "";

	/*
	 * "cpuN and cpuM share a rail but not its idle states" cannot be
	 * provoked from a DT: a rail is keyed by its power-domain node and its
	 * domain states are read from that same node, so every CPU of a rail
	 * gets them. What the check allows: different core states per CPU.
	 */
	LOAD_TOPO(FIXTURE("idle-ok"));
	KT_ASSERT_MSG(idle_parse_dt(&dtb.fdt, &topo, cis, rails, 0, err, sizeof(err)) == 2, "%s", err);
	for (int cpu = 0; cpu < 3; cpu++)
		for (int other = 0; other < 3; other++)
			if (cis[cpu].rail == cis[other].rail)
				KT_ASSERT_EQ(cis[cpu].states[cis[cpu].nr_states - 1].domain,
					     cis[other].states[cis[other].nr_states - 1].domain);
	KT_ASSERT(cis[0].nr_states != cis[1].nr_states);
}

/* Very irregular long idles must not look regular through an overflow. */
KT_CASE(gov_typical_interval_no_overflow)
{
	struct idle_gov g;

	idle_gov_init(&g);
	for (int i = 0; i < 8; i++) {
		idle_gov_select(&g, gov_states, 3, UINT64_MAX, IDLE_NO_LIMIT);
		idle_gov_reflect(&g, i % 2 ? 1720 * MS : 280 * MS);
	}
	/* mean 1 s, stddev 720 ms > mean / 6: no typical interval, no timer: no prediction. */
	KT_ASSERT(idle_gov_predict(&g, UINT64_MAX) == UINT64_MAX);
}
