/*
 * The energy model (include/kernel/sched/energy.h, kernel/sched/energy.c):
 * - energy_model_parse_dt on the board DTBs (build/<board>/<board>.dtb,
 *   `make boards`) after topology_parse_dt / topology_build and
 *   idle_parse_dt, and on the fixtures tests/dts/idle-energy*.dts
 *   (build/host/dts/, `make host`): the costs read, the idle-entry counts
 *   that follow the CPUs' idle states, one fixture per error with its exact
 *   message, and a DT without a model;
 * - energy_compute on hand-built snapshots: per CPU busy power x busy time
 *   + idle power x time in each state, per rail busy / idle / off, cluster =
 *   rail + its CPUs, total; in power x ms, rounded down; a TC2 scenario
 *   (A15 cluster off vs busy); and snapshots taken from the rail and
 *   per-CPU accounting (kernel/sched/rail.c) driven by a fake clock.
 * Run from the repository root (tests/run.py does).
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ktest.h"
#include "dtb_file.h"
#include "kernel/sched/energy.h"
#include "kernel/lib/fdt.h"
#include "kernel/sched/idle.h"
#include "kernel/pack/pack.h"
#include "kernel/sched/topology.h"

#define FIXTURE(name) "build/host/dts/" name ".dtb"
#define BOARD(name) "build/" name "/" name ".dtb"
#define US 1000ull
#define MS 1000000ull

/* ------------------------------------------------------------ DT */


static struct dtb dtb;
static struct topology topo;
static struct cpu_idle cis[TOPO_MAX_CPUS];
static struct rail rails[IDLE_MAX_RAILS];
static struct energy_model model;
static int nr_rails;

static bool load_dtb(const char *path, char *why, size_t len)
{
	return dtb_load(path, &dtb, why, len);
}

/* Load @path: topology and idle states must parse. */
#define LOAD_IDLE(path)                                                        \
	do {                                                                   \
		char why_[300] = "";                                           \
		KT_ASSERT_MSG(load_dtb((path), why_, sizeof(why_)), "%s", why_); \
		KT_ASSERT_MSG(topology_parse_dt(&dtb.fdt, &topo, why_, sizeof(why_)) == 0, \
			      "%s: topology_parse_dt: %s", (path), why_);      \
		topology_build(&topo, &policy_rails);                             \
		nr_rails = idle_parse_dt(&dtb.fdt, &topo, cis, rails, 0, why_, sizeof(why_)); \
		KT_ASSERT_MSG(nr_rails > 0, "%s: idle_parse_dt: %s", (path), why_); \
		memset(&model, 0x5a, sizeof(model));                           \
	} while (0)

/* ... and the model too. */
#define LOAD_MODEL(path)                                                       \
	do {                                                                   \
		char err_[200] = "";                                           \
		LOAD_IDLE(path);                                               \
		KT_ASSERT_MSG(energy_model_parse_dt(&dtb.fdt, &topo, cis, nr_rails, &model, err_, \
						    sizeof(err_)) == 0,        \
			      "%s: energy_model_parse_dt: %s", (path), err_);  \
	} while (0)

#define EXPECT_ENERGY_ERROR(path, msg)                                         \
	do {                                                                   \
		char err_[200] = "";                                           \
		LOAD_IDLE(path);                                               \
		KT_ASSERT_EQ(energy_model_parse_dt(&dtb.fdt, &topo, cis, nr_rails, &model, err_, \
						   sizeof(err_)), -1);         \
		KT_ASSERT_STREQ(err_, (msg));                                  \
	} while (0)

/* Cost @c is busy @b with @n idle powers, listed after n. */
static bool cost_is(const struct energy_cost *c, uint32_t busy, int n, ...)
{
	va_list ap;
	bool ok = c->busy == busy && c->nr_idle == n;

	va_start(ap, n);
	for (int i = 0; i < n; i++)
		if (c->idle[i] != va_arg(ap, uint32_t))
			ok = false;
	va_end(ap);
	return ok;
}

static void cost_str(char *buf, size_t size, const struct energy_cost *c)
{
	size_t len = (size_t)snprintf(buf, size, "busy %u idle", c->busy);

	for (int i = 0; i < c->nr_idle && i < IDLE_MAX_STATES && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, " %u", c->idle[i]);
	if (len < size)
		snprintf(buf + len, size - len, " (nr_idle %d)", c->nr_idle);
}

#define EXPECT_COST(c, busy, n, ...)                                           \
	do {                                                                   \
		char got_[120];                                                \
		cost_str(got_, sizeof(got_), (c));                             \
		KT_ASSERT_MSG(cost_is((c), (busy), (n), __VA_ARGS__),          \
			      "%s: %s, expected busy %u idle %s (nr_idle %d)", #c, got_, \
			      (unsigned)(busy), #__VA_ARGS__, (n));            \
	} while (0)

KT_CASE(model_qemu_tc2)
{
	LOAD_MODEL(BOARD("qemu-tc2"));
	KT_ASSERT_EQ(nr_rails, 2);
	KT_ASSERT(model.present);
	KT_ASSERT_EQ(model.nr_cpus, 5);
	KT_ASSERT_EQ(model.nr_rails, 2);
	/* Cores: WFI costs 0; the cluster state powers the core off with the rail: 0. */
	for (int cpu = 0; cpu < 2; cpu++)
		EXPECT_COST(&model.core[cpu], 6997, 2, 0u, 0u);
	for (int cpu = 2; cpu < 5; cpu++)
		EXPECT_COST(&model.core[cpu], 1024, 2, 0u, 0u);
	/* Rails: idle with CPUs in WFI, then off. */
	EXPECT_COST(&model.rail[0], 15200, 2, 70u, 25u);
	EXPECT_COST(&model.rail[1], 4905, 2, 25u, 10u);
}

KT_CASE(model_vexpress_a9)
{
	LOAD_MODEL(BOARD("vexpress-a9"));
	KT_ASSERT_EQ(nr_rails, 1);
	KT_ASSERT(model.present);
	KT_ASSERT_EQ(model.nr_cpus, 4);
	KT_ASSERT_EQ(model.nr_rails, 1);
	for (int cpu = 0; cpu < 4; cpu++)
		EXPECT_COST(&model.core[cpu], 2000, 1, 500u);
	/* No domain state: the rail never goes off, one idle power. */
	EXPECT_COST(&model.rail[0], 4000, 1, 2000u);
}

KT_CASE(model_fixture)
{
	LOAD_MODEL(FIXTURE("idle-energy"));
	KT_ASSERT_EQ(nr_rails, 2);
	KT_ASSERT(model.present);
	KT_ASSERT_EQ(model.nr_cpus, 3);
	KT_ASSERT_EQ(model.nr_rails, 2);
	/* Busy power is the last operating point's; one idle power per core state, 0 for the domain state. */
	EXPECT_COST(&model.core[0], 480, 4, 30u, 12u, 2u, 0u);
	EXPECT_COST(&model.core[1], 470, 3, 31u, 11u, 0u);
	EXPECT_COST(&model.core[2], 200, 2, 20u, 5u);
	EXPECT_COST(&model.rail[0], 900, 2, 60u, 4u);
	EXPECT_COST(&model.rail[1], 300, 1, 50u);
}

KT_CASE(model_absent)
{
	char err[200] = "untouched";

	LOAD_IDLE(FIXTURE("idle-ok"));
	KT_ASSERT_EQ(energy_model_parse_dt(&dtb.fdt, &topo, cis, nr_rails, &model, err, sizeof(err)), 1);
	KT_ASSERT(!model.present);
	KT_ASSERT_STREQ(err, "untouched");
}

KT_CASE(model_errors)
{
	EXPECT_ENERGY_ERROR(FIXTURE("idle-energy-err-onephandle"),
			    "energy: cpu1: sched-energy-costs must be <&core &cluster>");
	EXPECT_ENERGY_ERROR(FIXTURE("idle-energy-err-missing"),
			    "energy: cpu0: sched-energy-costs names a missing node");
	EXPECT_ENERGY_ERROR(FIXTURE("idle-energy-err-coreidle"),
			    "energy: core-cost: idle-cost-data needs 1 entries");
	EXPECT_ENERGY_ERROR(FIXTURE("idle-energy-err-railidle"),
			    "energy: cluster-cost: idle-cost-data needs 2 entries");
	EXPECT_ENERGY_ERROR(FIXTURE("idle-energy-err-pairs"),
			    "energy: core-cost: busy-cost-data must be <capacity power> pairs");
	EXPECT_ENERGY_ERROR(FIXTURE("idle-energy-err-nobusy"),
			    "energy: cluster-cost: busy-cost-data must be <capacity power> pairs");
	EXPECT_ENERGY_ERROR(FIXTURE("idle-energy-err-some"), "energy: 1 of 2 CPUs have sched-energy-costs");
}

/* ------------------------------------------------------------ energy_compute */

static struct energy_snapshot snap_from, snap_to;
static struct energy_report report;
static struct rail hand_rails[IDLE_MAX_RAILS];
static struct energy_model hand;

static void set_cost(struct energy_cost *c, uint32_t busy, int n, const uint32_t *idle)
{
	memset(c, 0, sizeof(*c));
	c->busy = busy;
	c->nr_idle = n;
	for (int i = 0; i < n; i++)
		c->idle[i] = idle[i];
}

/*
 * Two CPUs (wfi, core state, cluster state) on rail 0 with a domain
 * state; CPU 2 (wfi only) alone on rail 1 without one.
 */
static void hand_model(void)
{
	static const uint32_t core_idle[3] = { 40, 10, 0 }, rail0_idle[2] = { 100, 5 };
	static const uint32_t core2_idle[1] = { 7 }, rail1_idle[1] = { 30 };

	memset(&hand, 0, sizeof(hand));
	hand.nr_cpus = 3;
	hand.nr_rails = 2;
	hand.present = true;
	set_cost(&hand.core[0], 300, 3, core_idle);
	set_cost(&hand.core[1], 300, 3, core_idle);
	set_cost(&hand.core[2], 90, 1, core2_idle);
	set_cost(&hand.rail[0], 1000, 2, rail0_idle);
	set_cost(&hand.rail[1], 200, 1, rail1_idle);
	memset(hand_rails, 0, sizeof(hand_rails));
	hand_rails[0].cpus = cpumask_from_u32(0x3);
	hand_rails[1].cpus = cpumask_from_u32(0x4);
}

/* @to = @from plus the given residencies (ms): busy, state 0, 1, 2 per CPU. */
static void cpu_add(int cpu, uint64_t busy, uint64_t s0, uint64_t s1, uint64_t s2)
{
	snap_to.cpu_busy_ns[cpu] = snap_from.cpu_busy_ns[cpu] + busy;
	snap_to.cpu_state_ns[cpu][0] = snap_from.cpu_state_ns[cpu][0] + s0;
	snap_to.cpu_state_ns[cpu][1] = snap_from.cpu_state_ns[cpu][1] + s1;
	snap_to.cpu_state_ns[cpu][2] = snap_from.cpu_state_ns[cpu][2] + s2;
}

static void rail_add(int r, uint64_t busy, uint64_t idle, uint64_t off)
{
	snap_to.rail_ns[r][RAIL_BUSY] = snap_from.rail_ns[r][RAIL_BUSY] + busy;
	snap_to.rail_ns[r][RAIL_IDLE] = snap_from.rail_ns[r][RAIL_IDLE] + idle;
	snap_to.rail_ns[r][RAIL_OFF] = snap_from.rail_ns[r][RAIL_OFF] + off;
}

/* A "from" snapshot that is not all zeros: only differences may matter. */
static void snap_base(uint64_t t)
{
	memset(&snap_from, 0, sizeof(snap_from));
	memset(&snap_to, 0, sizeof(snap_to));
	snap_from.t_ns = t;
	for (int cpu = 0; cpu < 8; cpu++) {
		snap_from.cpu_busy_ns[cpu] = 123456789ull * (uint64_t)(cpu + 1);
		for (int s = 0; s < IDLE_MAX_STATES; s++)
			snap_from.cpu_state_ns[cpu][s] = 987654321ull + (uint64_t)(cpu * 10 + s) * 1111;
	}
	for (int r = 0; r < IDLE_MAX_RAILS; r++)
		for (int k = 0; k < 3; k++)
			snap_from.rail_ns[r][k] = 555555555ull * (uint64_t)(r + 1) + (uint64_t)k * 7;
	snap_to = snap_from;
}

KT_CASE(compute_whole_ms)
{
	hand_model();
	snap_base(5 * 1000 * MS);
	snap_to.t_ns = snap_from.t_ns + 100 * MS;
	cpu_add(0, 30 * MS, 20 * MS, 50 * MS, 0);
	cpu_add(1, 10 * MS, 0, 40 * MS, 50 * MS);
	cpu_add(2, 1 * MS, 99 * MS, 0, 0);
	rail_add(0, 40 * MS, 20 * MS, 40 * MS);
	rail_add(1, 1 * MS, 99 * MS, 0);
	memset(&report, 0x5a, sizeof(report));
	energy_compute(&hand, &snap_from, &snap_to, hand_rails, &report);
	KT_ASSERT_EQ(report.window_ns, 100 * MS);
	KT_ASSERT_EQ(report.cpu[0], 300 * 30 + 40 * 20 + 10 * 50);	/* 10300 */
	KT_ASSERT_EQ(report.cpu[1], 300 * 10 + 10 * 40 + 0 * 50);	/* 3400 */
	KT_ASSERT_EQ(report.cpu[2], 90 * 1 + 7 * 99);			/* 783 */
	KT_ASSERT_EQ(report.rail[0], 1000 * 40 + 100 * 20 + 5 * 40);	/* 42200 */
	KT_ASSERT_EQ(report.rail[1], 200 * 1 + 30 * 99);		/* 3170 */
	KT_ASSERT_EQ(report.cluster[0], 42200 + 10300 + 3400);
	KT_ASSERT_EQ(report.cluster[1], 3170 + 783);
	KT_ASSERT_EQ(report.total, 55900 + 3953);
	/* Nothing beyond the model's CPUs and rails. */
	KT_ASSERT_EQ(report.cpu[3], 0);
	KT_ASSERT_EQ(report.rail[2], 0);
	KT_ASSERT_EQ(report.cluster[2], 0);

	/* The same window seen from an all-zero start gives the same energy. */
	{
		static struct energy_snapshot zero, shifted;
		static struct energy_report again;

		shifted = zero;
		shifted.t_ns = 100 * MS;
		for (int cpu = 0; cpu < 3; cpu++) {
			shifted.cpu_busy_ns[cpu] = snap_to.cpu_busy_ns[cpu] - snap_from.cpu_busy_ns[cpu];
			for (int s = 0; s < IDLE_MAX_STATES; s++)
				shifted.cpu_state_ns[cpu][s] =
					snap_to.cpu_state_ns[cpu][s] - snap_from.cpu_state_ns[cpu][s];
		}
		for (int r = 0; r < 2; r++)
			for (int k = 0; k < 3; k++)
				shifted.rail_ns[r][k] = snap_to.rail_ns[r][k] - snap_from.rail_ns[r][k];
		energy_compute(&hand, &zero, &shifted, hand_rails, &again);
		KT_ASSERT(memcmp(&again, &report, sizeof(again)) == 0);
	}
}

KT_CASE(compute_idle_window_is_zero)
{
	hand_model();
	snap_base(0);
	energy_compute(&hand, &snap_from, &snap_to, hand_rails, &report);
	KT_ASSERT_EQ(report.window_ns, 0);
	KT_ASSERT_EQ(report.total, 0);
	for (int i = 0; i < 3; i++)
		KT_ASSERT_EQ(report.cpu[i], 0);
}

KT_CASE(compute_sub_ms_rounds_down)
{
	static const uint32_t core_idle[2] = { 1024, 3 }, rail_idle[2] = { 70, 25 };

	memset(&hand, 0, sizeof(hand));
	hand.nr_cpus = 2;
	hand.nr_rails = 1;
	set_cost(&hand.core[0], 6997, 2, core_idle);
	set_cost(&hand.core[1], 6997, 2, core_idle);
	set_cost(&hand.rail[0], 15200, 2, rail_idle);
	memset(hand_rails, 0, sizeof(hand_rails));
	hand_rails[0].cpus = cpumask_from_u32(0x3);
	snap_base(777);
	snap_to.t_ns = snap_from.t_ns + 13735 * US;
	/* 6997 x 1.5 ms = 10495.5; 1024 x 0.25 ms = 256: 10751.5 -> 10751 */
	cpu_add(0, 1500 * US, 250 * US, 0, 0);
	/* 3 x 0.333 ms = 0.999 -> 0 */
	cpu_add(1, 0, 0, 333 * US, 0);
	/* 15200 x 2.5 ms = 38000; 70 x 1.234 ms = 86.38; 25 x 10.001 ms = 250.025: 38336.405 */
	rail_add(0, 2500 * US, 1234 * US, 10001 * US);
	energy_compute(&hand, &snap_from, &snap_to, hand_rails, &report);
	KT_ASSERT_EQ(report.window_ns, 13735 * US);
	KT_ASSERT_EQ(report.cpu[0], 10751);
	KT_ASSERT_EQ(report.cpu[1], 0);
	KT_ASSERT_EQ(report.rail[0], 38336);
	KT_ASSERT_EQ(report.cluster[0], 38336 + 10751);
	KT_ASSERT_EQ(report.total, 49087);
	/* One microsecond at 999 is 0.999 units: 0; at 1000, exactly 1. */
	{
		static const uint32_t i999[1] = { 999 }, i1000[1] = { 1000 };

		set_cost(&hand.core[0], 0, 1, i999);
		set_cost(&hand.core[1], 0, 1, i1000);
		hand.rail[0].busy = 0;
		snap_base(0);
		cpu_add(0, 0, 1 * US, 0, 0);
		cpu_add(1, 0, 1 * US, 0, 0);
		energy_compute(&hand, &snap_from, &snap_to, hand_rails, &report);
		KT_ASSERT_EQ(report.cpu[0], 0);
		KT_ASSERT_EQ(report.cpu[1], 1);
	}
}

KT_CASE(compute_rail_without_off_state)
{
	hand_model();
	/* Rail 1 has no domain state: only busy and idle cost; CPU 2 idles in WFI. */
	snap_base(0);
	cpu_add(2, 0, 10 * MS, 0, 0);
	rail_add(1, 0, 10 * MS, 0);
	energy_compute(&hand, &snap_from, &snap_to, hand_rails, &report);
	KT_ASSERT_EQ(report.rail[1], 30 * 10);
	KT_ASSERT_EQ(report.cpu[2], 7 * 10);
	KT_ASSERT_EQ(report.cluster[1], 370);
	KT_ASSERT_EQ(report.total, 370);
	/* Rail 0 off for 1 s costs its off power, 5 x 1000. */
	snap_base(0);
	rail_add(0, 0, 0, 1000 * MS);
	energy_compute(&hand, &snap_from, &snap_to, hand_rails, &report);
	KT_ASSERT_EQ(report.rail[0], 5000);
	KT_ASSERT_EQ(report.total, 5000);
}

/*
 * TC2 (the qemu-tc2 model from its DTB), a 1 s window. The seeds' shape:
 * one task on the A15 cluster keeps it powered, or packed on an A7 it lets
 * the whole A15 cluster power off.
 */
KT_CASE(compute_tc2_a15_off_vs_busy)
{
	static struct energy_report off_report, busy_report;

	LOAD_MODEL(BOARD("qemu-tc2"));

	/* A15 cluster off for the whole second; the task on CPU 2 (A7), CPUs 3-4 in WFI. */
	snap_base(0);
	snap_to.t_ns = 1000 * MS;
	cpu_add(0, 0, 0, 1000 * MS, 0);
	cpu_add(1, 0, 0, 1000 * MS, 0);
	cpu_add(2, 1000 * MS, 0, 0, 0);
	cpu_add(3, 0, 1000 * MS, 0, 0);
	cpu_add(4, 0, 1000 * MS, 0, 0);
	rail_add(0, 0, 0, 1000 * MS);
	rail_add(1, 1000 * MS, 0, 0);
	energy_compute(&model, &snap_from, &snap_to, rails, &off_report);
	KT_ASSERT_EQ(off_report.rail[0], 25 * 1000);
	KT_ASSERT_EQ(off_report.cpu[0], 0);
	KT_ASSERT_EQ(off_report.cpu[1], 0);
	KT_ASSERT_EQ(off_report.cluster[0], 25000);
	KT_ASSERT_EQ(off_report.cpu[2], 1024 * 1000);
	KT_ASSERT_EQ(off_report.cpu[3], 0);
	KT_ASSERT_EQ(off_report.rail[1], 4905 * 1000);
	KT_ASSERT_EQ(off_report.cluster[1], 4905000 + 1024000);
	KT_ASSERT_EQ(off_report.total, 5954000);

	/* The task on CPU 0 (A15): that cluster busy, CPU 1 in WFI; the A7 cluster off. */
	snap_base(0);
	snap_to.t_ns = 1000 * MS;
	cpu_add(0, 1000 * MS, 0, 0, 0);
	cpu_add(1, 0, 1000 * MS, 0, 0);
	for (int cpu = 2; cpu < 5; cpu++)
		cpu_add(cpu, 0, 0, 1000 * MS, 0);
	rail_add(0, 1000 * MS, 0, 0);
	rail_add(1, 0, 0, 1000 * MS);
	energy_compute(&model, &snap_from, &snap_to, rails, &busy_report);
	KT_ASSERT_EQ(busy_report.cpu[0], 6997 * 1000);
	KT_ASSERT_EQ(busy_report.rail[0], 15200 * 1000);
	KT_ASSERT_EQ(busy_report.cluster[0], 22197000);
	KT_ASSERT_EQ(busy_report.rail[1], 10 * 1000);
	KT_ASSERT_EQ(busy_report.cluster[1], 10000);
	KT_ASSERT_EQ(busy_report.total, 22207000);

	/* Spread over the A15 costs 22207000 / 5954000 = 3.729x the packed energy. */
	KT_ASSERT_EQ(busy_report.total * 1000 / off_report.total, 3729);

	/* The A15 cluster on but idle (CPUs in WFI) costs its idle power: 70 x 1000. */
	snap_base(0);
	cpu_add(0, 0, 1000 * MS, 0, 0);
	cpu_add(1, 0, 1000 * MS, 0, 0);
	rail_add(0, 0, 1000 * MS, 0);
	energy_compute(&model, &snap_from, &snap_to, rails, &report);
	KT_ASSERT_EQ(report.cluster[0], 70000);
}

KT_CASE(compute_vexpress_a9)
{
	LOAD_MODEL(BOARD("vexpress-a9"));
	/* 100 ms: CPU 0 busy, the others in WFI; the tile busy throughout. */
	snap_base(0);
	snap_to.t_ns = 100 * MS;
	cpu_add(0, 100 * MS, 0, 0, 0);
	for (int cpu = 1; cpu < 4; cpu++)
		cpu_add(cpu, 0, 100 * MS, 0, 0);
	rail_add(0, 100 * MS, 0, 0);
	energy_compute(&model, &snap_from, &snap_to, rails, &report);
	KT_ASSERT_EQ(report.cpu[0], 200000);
	KT_ASSERT_EQ(report.cpu[1], 50000);
	KT_ASSERT_EQ(report.rail[0], 400000);
	KT_ASSERT_EQ(report.cluster[0], 400000 + 200000 + 3 * 50000);
	KT_ASSERT_EQ(report.total, 750000);
	/* All idle: 4 x 500 + 2000 per ms. */
	snap_base(0);
	for (int cpu = 0; cpu < 4; cpu++)
		cpu_add(cpu, 0, 10 * MS, 0, 0);
	rail_add(0, 0, 10 * MS, 0);
	energy_compute(&model, &snap_from, &snap_to, rails, &report);
	KT_ASSERT_EQ(report.total, 10 * (4 * 500 + 2000));
}

/* --- snapshots from the real accounting (kernel/sched/rail.c), fake clock --- */

static void take_snapshot(struct energy_snapshot *s, struct cpu_idle *ci, int nr_cpus, struct rail *r,
			  int nr, uint64_t now)
{
	memset(s, 0, sizeof(*s));
	s->t_ns = now;
	for (int cpu = 0; cpu < nr_cpus; cpu++) {
		s->cpu_busy_ns[cpu] = ci[cpu].busy_ns;
		for (int st = 0; st < IDLE_MAX_STATES; st++)
			s->cpu_state_ns[cpu][st] = ci[cpu].state_ns[st];
		if (ci[cpu].cur_state < 0)
			s->cpu_busy_ns[cpu] += now - ci[cpu].since_ns;
		else
			s->cpu_state_ns[cpu][ci[cpu].cur_state] += now - ci[cpu].since_ns;
	}
	for (int i = 0; i < nr; i++)
		rail_residency(&r[i], now, s->rail_ns[i]);
}

static void go_idle(int cpu, int state, uint64_t now)
{
	cpu_idle_account_enter(&cis[cpu], state, now);
	rail_cpu_idle(&rails[0], 0, cpu, cis[cpu].states[state].domain, now, NULL);
}

static void wake(int cpu, uint64_t now)
{
	rail_cpu_busy(&rails[0], 0, cpu, now, NULL);
	cpu_idle_account_exit(&cis[cpu], now);
}

KT_CASE(compute_from_accounting)
{
	static const uint32_t core_idle[2] = { 40, 0 }, rail_idle[2] = { 100, 5 };

	/* Two CPUs (wfi, cluster state) on one rail with a domain state. */
	memset(cis, 0, sizeof(cis));
	for (int cpu = 0; cpu < 2; cpu++) {
		cis[cpu].nr_states = 2;
		cis[cpu].states[1].domain = true;
		cis[cpu].cur_state = -1;
		cis[cpu].rail = 0;
	}
	rail_init(&rails[0], &(cpumask_t){ { 0x3 } }, 0, 0);
	memset(&hand, 0, sizeof(hand));
	hand.nr_cpus = 2;
	hand.nr_rails = 1;
	set_cost(&hand.core[0], 300, 2, core_idle);
	set_cost(&hand.core[1], 300, 2, core_idle);
	set_cost(&hand.rail[0], 1000, 2, rail_idle);

	take_snapshot(&snap_from, cis, 2, rails, 1, 5 * MS);
	go_idle(0, 0, 10 * MS);		/* WFI */
	go_idle(1, 1, 30 * MS);		/* cluster state, but CPU 0 is in WFI: rail idle */
	KT_ASSERT_EQ(rails[0].state, RAIL_IDLE);
	wake(0, 50 * MS);
	go_idle(0, 1, 60 * MS);		/* last man: rail off */
	KT_ASSERT_EQ(rails[0].state, RAIL_OFF);
	wake(1, 100 * MS);		/* first man */
	take_snapshot(&snap_to, cis, 2, rails, 1, 120 * MS);	/* CPU 0 still in the cluster state */
	energy_compute(&hand, &snap_from, &snap_to, rails, &report);
	KT_ASSERT_EQ(report.window_ns, 115 * MS);
	/* CPU 0: busy 5-10, 50-60; WFI 10-50; cluster 60-120. */
	KT_ASSERT_EQ(report.cpu[0], 300 * 15 + 40 * 40 + 0 * 60);
	/* CPU 1: busy 5-30, 100-120; cluster 30-100. */
	KT_ASSERT_EQ(report.cpu[1], 300 * 45);
	/* Rail: busy 5-30, 50-60, 100-120; idle 30-50; off 60-100. */
	KT_ASSERT_EQ(report.rail[0], 1000 * 55 + 100 * 20 + 5 * 40);
	KT_ASSERT_EQ(report.cluster[0], 57200 + 6100 + 13500);
	KT_ASSERT_EQ(report.total, 76800);
}

/* Sub-microsecond remainders count too: 6997 x 1.5 us = 10.4955 -> 10 (not 9). */
KT_CASE(compute_sub_us_remainders)
{
	static const uint32_t core_idle[1] = { 0 }, rail_idle[1] = { 0 };

	memset(&hand, 0, sizeof(hand));
	hand.nr_cpus = 1;
	hand.nr_rails = 1;
	set_cost(&hand.core[0], 6997, 1, core_idle);
	set_cost(&hand.rail[0], 3, 1, rail_idle);
	memset(hand_rails, 0, sizeof(hand_rails));
	hand_rails[0].cpus = cpumask_from_u32(0x1);
	snap_base(0);
	snap_to.t_ns = snap_from.t_ns + 333999;
	cpu_add(0, 1500, 0, 0, 0);
	/* rail busy 333999 ns at 3 units: 1.001997 -> 1 */
	rail_add(0, 333999, 0, 0);
	energy_compute(&hand, &snap_from, &snap_to, hand_rails, &report);
	KT_ASSERT_EQ(report.cpu[0], 10);
	KT_ASSERT_EQ(report.rail[0], 1);
}
