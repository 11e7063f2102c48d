/*
 * The TC2 cpufreq back end (include/kernel/sched/cpufreq.h): a frequency
 * domain's OPP is asked of the Serial Power Controller as a performance
 * level, the way Linux's drivers/cpufreq/vexpress-spc-cpufreq.c does through
 * arch/arm/mach-vexpress/spc.c (ve_spc_set_performance), but without
 * waiting: set() writes the level and returns, busy() polls the SPC's
 * response (include/drivers/tc2_spc.h has the registers, drivers/tc2_spc.c
 * the sequence, host-tested).
 *
 *   cluster   a domain's SPC cluster is the MPIDR cluster ID (Aff1) of its
 *             first CPU, and the A15 one is the SCC's A15_CONF: the rule of
 *             drivers/tc2_pm.c (tc2_pm_init) and of Linux's tc2_pm_init /
 *             spc.c cluster_is_a15().
 *   table     the SPC's own table is read once here (ve_spc_populate_opps);
 *             the DT's table stays the kernel's: each OPP asks for the
 *             slowest SPC level at or above its frequency. One boot line per
 *             cluster whose tables differ says so.
 *   failure   a request the SPC refuses (STAT_ERR), does not answer within
 *             20 ms, or whose level does not read back is reported once per
 *             cluster; busy() then says the transition is over (the
 *             contract has no way back for a started request).
 *
 * UNVERIFIED without a real TC2: the polling of PWC_STATUS with the SPC
 * interrupt left masked, its acknowledgement by the read (docs/hardware.md).
 */
#include <stdbool.h>
#include <stdint.h>

#include "arch/arm.h"
#include "arch/smp.h"
#include "arch/timer.h"
#include "drivers/tc2_spc.h"
#include "kernel/lib/printk.h"
#include "kernel/sched/cpufreq.h"

static struct spc_perf spc;
static bool failure_reported[SPC_CLUSTERS];

/* The SPC through its base in ctx (as drivers/power_tc2.c's accessors). */
static uint32_t spc_mmio_read(void *ctx, uint32_t off)
{
	return mmio_read32((uintptr_t)ctx + off);
}

static void spc_mmio_write(void *ctx, uint32_t off, uint32_t v)
{
	mmio_write32((uintptr_t)ctx + off, v);
}

/* The SPC cluster of @d, or -1. */
static int domain_cluster(const struct freq_domain *d)
{
	uint32_t cl;

	if (d->first_cpu < 0 || d->first_cpu >= smp_nr_cpus())
		return -1;
	cl = (smp_cpu(d->first_cpu)->hwid >> 8) & 0xffu;
	return cl < SPC_CLUSTERS ? (int)cl : -1;
}

static int spc_set(struct freq_domain *d, int opp)
{
	int cl = domain_cluster(d);

	if (cl < 0 || opp < 0 || opp >= d->nr_opps)
		return SPC_EINVAL;
	return spc_perf_request(&spc, (unsigned int)cl, d->khz[opp], arch_now_ns());
}

static const char *spc_strerror(int err)
{
	return err == SPC_EIO ? "refused (STAT_ERR, or another level read back)"
	       : err == SPC_ETIMEDOUT ? "no answer within 20 ms" : "failed";
}

static bool spc_busy(const struct freq_domain *d)
{
	int cl = domain_cluster(d);
	int r;

	if (cl < 0)
		return false;
	r = spc_perf_poll(&spc, (unsigned int)cl, arch_now_ns());
	if (r < 0 && !failure_reported[cl]) {
		failure_reported[cl] = true;
		kprintf("cpufreq: spc: cluster%d: a performance level request %s (reported once)\n", d->cluster,
			spc_strerror(r));
	}
	return r == SPC_PENDING;
}

static const struct cpufreq_backend spc_backend = {
	.name = "tc2-spc",
	.scales_time = true,
	.set = spc_set,
	.busy = spc_busy,
};

/* @n kHz values as "lo-hi MHz" (the SPC's table need not be sorted). */
static void span_mhz(const uint32_t *khz, int n, unsigned int *lo, unsigned int *hi)
{
	uint32_t a = UINT32_MAX, b = 0;

	for (int i = 0; i < n; i++) {
		a = khz[i] < a ? khz[i] : a;
		b = khz[i] > b ? khz[i] : b;
	}
	*lo = n ? (unsigned int)(a / 1000u) : 0;
	*hi = (unsigned int)(b / 1000u);
}

/* One boot line for a domain whose DT table is not the SPC's. */
static void check_domain(const struct freq_domain *d, int cl)
{
	const struct spc_opp_table *t = &spc.opps[cl];
	enum spc_tables cmp = spc_compare_tables(t, d->khz, d->nr_opps);
	unsigned int slo, shi, dlo, dhi;

	if (cmp == SPC_TABLES_SAME || d->nr_opps == 0)
		return;
	span_mhz(t->khz, t->nr, &slo, &shi);
	span_mhz(d->khz, d->nr_opps, &dlo, &dhi);
	kprintf("cpufreq: spc: cluster%d (%s): the SPC's table (%d levels, %u-%u MHz) is not the DT's "
		"(%d OPPs, %u-%u MHz): the DT's wins, each OPP asking for the nearest SPC level not below it%s\n",
		d->cluster, cl == (int)spc.a15_cluster ? "A15" : "A7", t->nr, slo, shi, d->nr_opps, dlo, dhi,
		cmp == SPC_TABLES_UNREACHABLE ? "; OPPs above the SPC's top level fail" : "");
}

int cpufreq_spc_init(const struct fdt *fdt)
{
	struct spc_io io = { spc_mmio_read, spc_mmio_write, NULL };
	uint64_t scc;
	int a15;

	if (tc2_scc_find(fdt, &scc) < 0)
		return 0;
	a15 = tc2_scc_a15_cluster(mmio_read32((uintptr_t)scc + TC2_SCC_A15_CONF),
				  mmio_read32((uintptr_t)scc + TC2_SCC_A7_CONF));
	if (a15 < 0) {
		kprintf("cpufreq: spc: the SCC names no A15/A7 cluster pair: no SPC frequency scaling\n");
		return SPC_EINVAL;
	}
	io.ctx = (void *)(uintptr_t)(scc + TC2_SCC_SPC_OFFSET);
	spc_perf_init(&spc, &io, (uint32_t)a15);
	for (unsigned int cl = 0; cl < SPC_CLUSTERS; cl++) {
		int ret = spc_read_opps(&spc, cl, arch_now_ns);

		if (ret != 0) {
			kprintf("cpufreq: spc: cluster %u's OPP table could not be read: %s: no SPC frequency scaling\n",
				cl, spc_strerror(ret));
			return ret;
		}
	}
	for (int i = 0; i < cpufreq_nr_domains(); i++) {
		const struct freq_domain *d = cpufreq_domain(i);
		int cl = domain_cluster(d);

		if (cl >= 0)
			check_domain(d, cl);
	}
	cpufreq_set_backend(&spc_backend);
	for (int cl = 0; cl < SPC_CLUSTERS; cl++) {
		unsigned int lo, hi;

		span_mhz(spc.opps[cl].khz, spc.opps[cl].nr, &lo, &hi);
		kprintf("cpufreq: spc: cluster %d (%s): SPC levels %u-%u MHz, now level %d\n", cl,
			cl == a15 ? "A15" : "A7", lo, hi, spc_perf_level(&spc, (unsigned int)cl));
	}
	return 1;
}

