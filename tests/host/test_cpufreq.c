/*
 * Frequency scaling (include/kernel/sched/cpufreq.h):
 * - cpufreq_parse_dt on tests/dts/opp-ok.dts and one fixture per error,
 *   each with its exact message; the energy model's per-OPP pairs and
 *   their binding to the domains (energy_model_bind_opps);
 * - busy time and energy integrated per OPP, and energy_compute sharing a
 *   domain's core energy among its CPUs;
 * - the live kernel booted from opp-ok.dts (kernel_init_dt): inefficient
 *   OPPs, the rate limit, OPP changes (scale, residency, average), and
 *   schedutil's rules (1.25 x fmax x util rounded up to an efficient OPP,
 *   the rate limit, no drop before the CPU idles, RT at the top);
 * - frequency-invariant PELT: running time at half speed counts half.
 * Hand-derived numbers: opp-ok.dts's header gives the costs.
 */
#include <stdint.h>
#include <string.h>

#include "host_boot.h"
#include "ktest.h"
#include "kernel/sched/cpufreq.h"
#include "kernel/sched/energy.h"
#include "kernel/sched/pelt.h"

#define FIXTURE(name) "build/host/dts/" name ".dtb"
#define MS 1000000ull

static struct dtb dtb;
static struct topology topo;
static struct cpufreq_dt fd;
static struct cpu_idle cis[TOPO_MAX_CPUS];
static struct rail rails[IDLE_MAX_RAILS];
static struct energy_model model;

/* Load @path's topology; 0, or the parse's return with the message in @err. */
static int parse(const char *path, char *err, size_t len)
{
	if (!dtb_load(path, &dtb, err, len))
		return -2;
	if (topology_parse_dt(&dtb.fdt, &topo, err, len) != 0)
		return -3;
	return cpufreq_parse_dt(&dtb.fdt, &topo, &fd, err, len);
}

/* ... and the energy model, bound to the domains: the bind's return. */
static int parse_model(const char *path, char *err, size_t len)
{
	int nr_rails, rc = parse(path, err, len);

	if (rc)
		return rc;
	topology_build(&topo, &policy_rails);
	nr_rails = idle_parse_dt(&dtb.fdt, &topo, cis, rails, 0, err, len);
	if (nr_rails <= 0)
		return -4;
	rc = energy_model_parse_dt(&dtb.fdt, &topo, cis, nr_rails, &model, err, len);
	if (rc)
		return rc;
	return energy_model_bind_opps(&model, &fd, cis, rails, err, len);
}

KT_CASE(tables_become_domains)
{
	char err[200] = "";

	KT_ASSERT_MSG(parse(FIXTURE("opp-ok"), err, sizeof(err)) == 0, "%s", err);
	KT_ASSERT_EQ(fd.nr_domains, 2);
	KT_ASSERT_EQ(fd.dom[0].nr_opps, 3);
	KT_ASSERT_EQ(fd.dom[0].khz[0], 500000);
	KT_ASSERT_EQ(fd.dom[0].khz[2], 2000000);
	KT_ASSERT_EQ(fd.dom[0].uv[0], 900000);
	KT_ASSERT_EQ(fd.dom[0].uv[2], 0);		/* not given */
	KT_ASSERT_EQ(fd.dom[0].latency_ns, 200000);	/* the table's largest */
	KT_ASSERT_EQ(fd.dom[0].cur, 2);			/* the top until a governor says otherwise */
	KT_ASSERT_EQ(cpumask_low32(&fd.dom[0].cpus), 0x3);
	KT_ASSERT_EQ(fd.dom[1].nr_opps, 2);
	KT_ASSERT_EQ(cpumask_low32(&fd.dom[1].cpus), 0x4);
	KT_ASSERT_EQ(fd.dom[1].cluster, 1);
	KT_ASSERT_EQ(fd.dom[1].latency_ns, 4000);
	KT_ASSERT_EQ(fd.cpu_domain[1], 0);
	KT_ASSERT_EQ(fd.cpu_domain[2], 1);
}

KT_CASE(a_dt_without_tables_has_no_domains)
{
	char err[200] = "";

	KT_ASSERT_MSG(parse(FIXTURE("idle-energy"), err, sizeof(err)) == 0, "%s", err);
	KT_ASSERT_EQ(fd.nr_domains, 0);
	KT_ASSERT_EQ(fd.cpu_domain[0], -1);
}

#define EXPECT_ERROR(fixture, msg)                                                                      \
	do {                                                                                            \
		char err_[200] = "";                                                                    \
		KT_ASSERT_EQ(parse(FIXTURE(fixture), err_, sizeof(err_)), -1);                          \
		KT_ASSERT_STREQ(err_, (msg));                                                           \
	} while (0)

KT_CASE(bad_tables_are_named)
{
	EXPECT_ERROR("opp-err-unsorted", "cpufreq: opp-table-big/opp-1000000000: opp-hz not above the OPP before it "
					  "(the table must be sorted, lowest first)");
	EXPECT_ERROR("opp-err-noshared", "cpufreq: opp-table-big: serves cpu0 and cpu1 but has no opp-shared");
	EXPECT_ERROR("opp-err-split", "cpufreq: cpu0 and cpu1 share a cluster but name different operating-points-v2 "
				      "tables");
	EXPECT_ERROR("opp-err-some", "cpufreq: 2 of 3 CPUs have operating-points-v2");
	EXPECT_ERROR("opp-err-nohz", "cpufreq: opp-table-little/opp-800000000: opp-hz missing or not one 32/64-bit "
				     "value");
	EXPECT_ERROR("opp-err-compat", "cpufreq: opp-table-little: compatible is not \"operating-points-v2\"");
}

KT_CASE(energy_costs_per_opp)
{
	char err[200] = "";

	KT_ASSERT_MSG(parse_model(FIXTURE("opp-ok"), err, sizeof(err)) == 0, "%s", err);
	KT_ASSERT_EQ(model.core[0].nr_opps, 3);
	KT_ASSERT_EQ(model.core[0].busy_opp[0], 300);
	KT_ASSERT_EQ(model.core[0].cap_opp[1], 512);
	KT_ASSERT_EQ(model.core[0].busy, 1600);	/* the top pair */
	KT_ASSERT_EQ(model.nr_domains, 2);
	KT_ASSERT_EQ(model.domain_rail[0], cis[0].rail);
	KT_ASSERT_EQ(model.domain_rail[1], cis[2].rail);
	KT_ASSERT_EQ(energy_busy_at(&model.rail[cis[2].rail], 0), 200);

	KT_ASSERT_EQ(parse_model(FIXTURE("opp-energy-err-count"), err, sizeof(err)), -1);
	KT_ASSERT_STREQ(err, "energy: cpu0: core busy-cost-data has 2 pairs for 3 OPPs (one per OPP, or one)");
	KT_ASSERT_EQ(parse_model(FIXTURE("opp-energy-err-cap"), err, sizeof(err)), -1);
	KT_ASSERT_STREQ(err, "energy: core-little: busy-cost-data capacity not rising (pair 1)");
}

KT_CASE(busy_energy_is_each_opps_power)
{
	static struct energy_snapshot from, to;
	struct energy_report rep;
	char err[200] = "";
	uint64_t rail_idle;

	KT_ASSERT_MSG(parse_model(FIXTURE("opp-ok"), err, sizeof(err)) == 0, "%s", err);
	memset(&from, 0, sizeof(from));
	memset(&to, 0, sizeof(to));
	from.nr_domains = to.nr_domains = 2;
	to.t_ns = 1000 * MS;
	/* cluster0: cpu0 busy 100 ms at 500 MHz and 50 ms at 2 GHz, cpu1 50 ms at 2 GHz (power x ns). */
	to.cpu_busy_ns[0] = 150 * MS;
	to.cpu_busy_ns[1] = 50 * MS;
	to.dom_core_pns[0] = (300 * 100 + 1600 * 100) * MS;
	/* ... the cluster busy 100 ms at 500 MHz and 60 ms at 2 GHz (they overlapped 40 ms). */
	to.dom_rail_pns[0] = (600 * 100 + 2000 * 60) * MS;
	to.rail_ns[cis[0].rail][RAIL_BUSY] = 160 * MS;
	to.rail_ns[cis[0].rail][RAIL_IDLE] = 840 * MS;
	energy_compute(&model, &from, &to, rails, &rep);
	/* Cores: 300 x 100 + 1600 x 100 = 190 000, shared 150 : 50. Idle cores: 10 per ms in WFI (none here). */
	KT_ASSERT_EQ(rep.cpu[0], 142500);
	KT_ASSERT_EQ(rep.cpu[1], 47500);
	/* Rail: 600 x 100 + 2000 x 60 busy, 50 x 840 idle. */
	rail_idle = 50 * 840;
	KT_ASSERT_EQ(rep.rail[cis[0].rail], 60000 + 120000 + rail_idle);
	/* Without DVFS counters in the snapshots: every busy ms at the top pair, as before. */
	from.nr_domains = to.nr_domains = 0;
	energy_compute(&model, &from, &to, rails, &rep);
	KT_ASSERT_EQ(rep.cpu[0], 1600 * 150);
	KT_ASSERT_EQ(rep.rail[cis[0].rail], 2000 * 160 + rail_idle);
}

static struct dtb boot_dtb;

static bool boot(void)
{
	return host_boot_dt(&boot_dtb, FIXTURE("opp-ok"), 3, "rails", 1000 * MS);
}

KT_CASE(live_domains_inefficient_opps_and_rate_limit)
{
	struct freq_domain *d;

	KT_ASSERT(boot());
	KT_ASSERT_EQ(cpufreq_nr_domains(), 2);
	KT_ASSERT(!cpufreq_enabled);	/* performance: the hooks do not run */
	d = cpufreq_domain_of(1);
	KT_ASSERT(d == cpufreq_domain(0));
	KT_ASSERT_STREQ(d->gov->name, "performance");
	/* Per unit of work: 500 MHz 3.52, 1 GHz 2.34, 2 GHz 3.52 (opp-ok.dts). */
	KT_ASSERT(d->inefficient[0] && !d->inefficient[1] && !d->inefficient[2]);
	KT_ASSERT(!cpufreq_domain(1)->inefficient[0] && !cpufreq_domain(1)->inefficient[1]);
	/* 200 us latency x 1000 is over Linux's 10 ms cap; 4 us x 1000: 4 ms. */
	KT_ASSERT_EQ(d->rate_limit_ns, 10 * MS);
	KT_ASSERT_EQ(cpufreq_domain(1)->rate_limit_ns, 4 * MS);
}

KT_CASE(opp_changes_scale_and_residency)
{
	struct freq_domain *d;
	uint64_t opp_ns[CPUFREQ_MAX_OPPS], khz_ns;

	KT_ASSERT(boot());
	d = cpufreq_domain(0);
	KT_ASSERT_EQ(cpufreq_scale(0), 1024);
	KT_ASSERT_EQ(cpufreq_set_opp(d, 1, 1010 * MS), 0);
	KT_ASSERT_EQ(cpufreq_scale(0), 512);
	KT_ASSERT_EQ(cpufreq_scale(1), 512);
	KT_ASSERT_EQ(cpufreq_scale(2), 1024);	/* another clock */
	/* What the CPUs' own PELT updates read: running time at 1 GHz counts half. */
	KT_ASSERT_EQ(cpu_rq(0)->freq_scale, 512);
	KT_ASSERT_EQ(cpu_rq(1)->freq_scale, 512);
	KT_ASSERT_EQ(cpu_rq(2)->freq_scale, 1024);
	KT_ASSERT_EQ(cpufreq_set_opp(d, 0, 1040 * MS), 0);
	KT_ASSERT_EQ(cpufreq_scale(1), 256);
	cpufreq_residency(d, 1100 * MS, opp_ns, &khz_ns);
	KT_ASSERT_EQ(opp_ns[2], 10 * MS);
	KT_ASSERT_EQ(opp_ns[1], 30 * MS);
	KT_ASSERT_EQ(opp_ns[0], 60 * MS);
	/* Average over the 100 ms: (2000 x 10 + 1000 x 30 + 500 x 60) / 100 MHz = 800 MHz. */
	KT_ASSERT_EQ(khz_ns / (100 * MS), 800000);
	KT_ASSERT_EQ(d->nr_transitions, 2);
}

/* @cpu goes idle (@idle) or busy at @t on its rail, as the idle path does. */
static void rail_state(int cpu, bool idle, uint64_t t)
{
	int r = cpu_idle_of(cpu)->rail;

	if (idle)
		rail_cpu_idle(idle_rail(r), r, cpu, false, t, NULL);
	else
		rail_cpu_busy(idle_rail(r), r, cpu, t, NULL);
}

KT_CASE(busy_energy_is_integrated_per_opp)
{
	struct freq_domain *d;
	uint64_t core_pns, rail_pns, khz_ns;

	KT_ASSERT(boot());
	d = cpufreq_domain(0);
	KT_ASSERT(d->rail == idle_rail(cpu_idle_of(0)->rail));
	KT_ASSERT(cpufreq_domain(1)->rail != NULL);
	/* Booted at 1000 ms: cpu0 and cpu1 came online busy, at 2 GHz. */
	rail_state(1, true, 1020 * MS);
	KT_ASSERT_EQ(cpufreq_set_opp(d, 1, 1030 * MS), 0);
	rail_state(0, true, 1050 * MS);
	rail_state(1, false, 1060 * MS);
	cpufreq_energy_counters(d, 1100 * MS, &core_pns, &rail_pns, &khz_ns);
	/* Cores at 2 GHz (1600): cpu0 30 ms + cpu1 20 ms; at 1 GHz (500): cpu0 20 ms + cpu1 40 ms. */
	KT_ASSERT_EQ(core_pns, (1600 * 50 + 500 * 60) * MS);
	/* The rail busy (some CPU busy) 30 ms at 2 GHz (2000), 20 + 40 ms at 1 GHz (700). */
	KT_ASSERT_EQ(rail_pns, (2000 * 30 + 700 * 60) * MS);
	cpufreq_note_idle(0);
	KT_ASSERT_EQ(cpufreq_idle_calls[0], 1);
}

/* cpu0's utilisation @u / 1024 (running throughout), then schedutil's update at @now. */
static int decide(uint32_t u, uint64_t now, enum cpufreq_event ev)
{
	host_fake_now = now;
	host_set_avg(&cpu_rq(0)->avg, 40000, 40000u * u / 1024, 40000);
	cpufreq_update(0, now, ev);
	return cpufreq_domain(0)->cur;
}

KT_CASE(schedutil_rules)
{
	struct freq_domain *d;

	KT_ASSERT(boot());
	d = cpufreq_domain(0);
	KT_ASSERT_EQ(cpufreq_set_governor(d, cpufreq_governor_find("schedutil"), 1000 * MS), 0);
	cpufreq_note_idle(0);	/* cpu0 has idled: drops allowed */
	/* 30%: 1.25 x 2 GHz x 0.3 = 750 MHz -> 1 GHz. */
	KT_ASSERT_EQ(decide(307, 1001 * MS, CPUFREQ_TICK), 1);
	/* Within the 10 ms rate limit: no change even at 100%. */
	KT_ASSERT_EQ(decide(1024, 1005 * MS, CPUFREQ_TICK), 1);
	KT_ASSERT_EQ(decide(1024, 1012 * MS, CPUFREQ_TICK), 2);
	/* 10%: 250 MHz -> 500 MHz is inefficient -> 1 GHz; but cpu0 has not idled since: no drop. */
	KT_ASSERT_EQ(decide(102, 1030 * MS, CPUFREQ_TICK), 2);
	cpufreq_note_idle(0);
	KT_ASSERT_EQ(decide(102, 1040 * MS, CPUFREQ_TICK), 1);
	/* An RT task: the top, whatever the utilisation, but not within the rate limit either. */
	KT_ASSERT_EQ(decide(0, 1045 * MS, CPUFREQ_RT), 1);
	KT_ASSERT_EQ(decide(0, 1080 * MS, CPUFREQ_RT), 2);
	/*
	 * 45%: 1.25 x 2 GHz x 0.45 = 1.125 GHz, rounded up: 2 GHz (fmax x util,
	 * with no headroom, would be 900 MHz -> 1 GHz; rounded down, 1 GHz).
	 */
	cpufreq_note_idle(0);
	KT_ASSERT_EQ(decide(102, 1100 * MS, CPUFREQ_TICK), 1);
	KT_ASSERT_EQ(decide(461, 1120 * MS, CPUFREQ_TICK), 2);
}

KT_CASE(schedutil_the_busiest_fresh_cpu_decides)
{
	struct freq_domain *d;

	KT_ASSERT(boot());
	d = cpufreq_domain(0);
	KT_ASSERT_EQ(cpufreq_set_governor(d, cpufreq_governor_find("schedutil"), 1000 * MS), 0);
	cpufreq_note_idle(0);
	KT_ASSERT_EQ(decide(102, 1001 * MS, CPUFREQ_TICK), 1);
	/* cpu1 busy 100%: the domain goes to the top for it. */
	host_fake_now = 1020 * MS;
	host_set_avg(&cpu_rq(1)->avg, 40000, 40000, 40000);
	cpufreq_update(1, 1020 * MS, CPUFREQ_TICK);
	KT_ASSERT_EQ(d->cur, 2);
	/* Within a tick of cpu1's last update, cpu0's low figure does not bring it down... */
	host_fake_now = 1030 * MS;
	cpufreq_update(1, 1030 * MS, CPUFREQ_TICK);
	cpufreq_note_idle(0);
	KT_ASSERT_EQ(decide(102, 1030 * MS + 500000, CPUFREQ_TICK), 2);
	/* ... but cpu1's figure, not updated for over a look and a tick (it went idle tickless), no longer counts. */
	cpufreq_note_idle(0);
	KT_ASSERT_EQ(decide(102, 1045 * MS, CPUFREQ_TICK), 1);
}

KT_CASE(other_governors_hold_their_opp)
{
	struct freq_domain *d;

	KT_ASSERT(boot());
	d = cpufreq_domain(0);
	KT_ASSERT_EQ(cpufreq_set_governor(d, cpufreq_governor_find("powersave"), 1000 * MS), 0);
	KT_ASSERT_EQ(d->cur, 0);
	KT_ASSERT_EQ(decide(1024, 1100 * MS, CPUFREQ_RT), 0);
	KT_ASSERT_EQ(cpufreq_set_governor(d, cpufreq_governor_find("performance"), 1200 * MS), 0);
	KT_ASSERT_EQ(d->cur, 2);
	KT_ASSERT_EQ(decide(0, 1300 * MS, CPUFREQ_TICK), 2);
	d->user_khz = 1000000;
	KT_ASSERT_EQ(cpufreq_set_governor(d, cpufreq_governor_find("userspace"), 1400 * MS), 0);
	KT_ASSERT_EQ(d->cur, 1);
	KT_ASSERT(cpufreq_governor_find("ondemand") == NULL);
}

KT_CASE(pelt_running_time_counts_at_the_frequency)
{
	struct sched_avg full, half;

	pelt_init(&full, 0);
	pelt_init(&half, 0);
	/* Running throughout for 400 ms, updated every ms: at the top, and at half the frequency. */
	for (uint64_t t = MS; t <= 400 * MS; t += MS) {
		pelt_update_scaled(&full, t, true, true, 1024);
		pelt_update_scaled(&half, t, true, true, 512);
	}
	KT_ASSERT_EQ(half.runnable_avg_sum, full.runnable_avg_sum);
	KT_ASSERT(pelt_usage_ratio(&full) >= 1020);
	KT_ASSERT_MSG(pelt_usage_ratio(&half) >= 508 && pelt_usage_ratio(&half) <= 512, "half: %u",
		      pelt_usage_ratio(&half));
	/* One long update across many periods: the same halving. */
	pelt_init(&half, 0);
	pelt_update_scaled(&half, 400 * MS, true, true, 512);
	KT_ASSERT_MSG(pelt_usage_ratio(&half) >= 508 && pelt_usage_ratio(&half) <= 512, "half: %u",
		      pelt_usage_ratio(&half));
}

/*
 * TC2's A7 cluster (boards/tc2/tc2.dts, the EAS TC2 numbers): per unit of
 * work, (core + cluster power) x 1024 / capacity, from 350 MHz up:
 * 21.5k, 18.3k, 15.0k, 12.8k, 11.5k, 10.1k (800 MHz), 12.4k, 14.1k. Every
 * OPP below 800 MHz costs more than 800 MHz: inefficient. Counting the
 * core alone (Linux's rule) would find 350 MHz efficient (1.28k, the
 * cheapest) and 700 MHz too (1.52k, below 800's 1.63k).
 */
KT_CASE(tc2_a7s_below_800_mhz_are_inefficient_counting_the_cluster)
{
	static struct dtb tc2;
	const struct freq_domain *d;

	KT_ASSERT(host_boot_dt(&tc2, "build/tc2/tc2.dtb", 5, "rails", 1000 * MS));
	d = cpufreq_domain_of(2);
	KT_ASSERT(d != NULL && d->nr_opps == 8 && d->khz[5] == 800000);
	for (int o = 0; o < 8; o++)
		KT_ASSERT_MSG(d->inefficient[o] == (o < 5), "A7 OPP %d (%u kHz)", o, d->khz[o]);
	KT_ASSERT_EQ(d->rate_limit_ns, 10 * MS);	/* 1 ms latency x 1000, capped */
}
