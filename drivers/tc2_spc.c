/* The SPC programming sequence; see include/drivers/tc2_spc.h. */
#include "drivers/tc2_spc.h"

#include <string.h>

#include "kernel/lib/fdt.h"

static void spc_update(const struct spc_io *io, uint32_t off, uint32_t set, uint32_t clear)
{
	uint32_t v = io->read(io->ctx, off);

	io->write(io->ctx, off, (v & ~clear) | set);
}

int spc_set_resume_addr(const struct spc_io *io, bool a15, unsigned int core, uint32_t addr)
{
	if (core >= SPC_MAX_CORES || (addr & 3u))
		return SPC_EINVAL;	/* ARM-state entry: word aligned */
	io->write(io->ctx, (a15 ? SPC_A15_BX_ADDR0 : SPC_A7_BX_ADDR0) + 4u * core, addr);
	return 0;
}

int spc_cpu_wakeup(const struct spc_io *io, bool a15, unsigned int core, bool set)
{
	uint32_t bit;

	if (core >= SPC_MAX_CORES)
		return SPC_EINVAL;
	bit = SPC_WAKE_CPU(a15, core);
	spc_update(io, SPC_WAKE_INT_MASK, set ? bit : 0, set ? 0 : bit);
	return 0;
}

void spc_global_wakeup(const struct spc_io *io, bool set)
{
	spc_update(io, SPC_WAKE_INT_MASK, set ? SPC_WAKE_GLOBAL : 0, set ? 0 : SPC_WAKE_GLOBAL);
}

void spc_cluster_powerdown(const struct spc_io *io, bool a15, bool enable)
{
	io->write(io->ctx, a15 ? SPC_A15_PWRDN_EN : SPC_A7_PWRDN_EN, enable ? 1u : 0u);
}

int spc_cpu_down_prepare(const struct spc_io *io, bool a15, unsigned int core, uint32_t resume_addr)
{
	/* The mailbox before the wake-up bit: once the bit is set the SPC may cut power. */
	if (resume_addr == 0)
		return SPC_EINVAL;
	if (spc_set_resume_addr(io, a15, core, resume_addr) != 0)
		return SPC_EINVAL;
	return spc_cpu_wakeup(io, a15, core, true);
}

int spc_cpu_up(const struct spc_io *io, bool a15, unsigned int core)
{
	/* The reverse order: no window where the bit is set with an empty mailbox. */
	if (spc_cpu_wakeup(io, a15, core, false) != 0)
		return SPC_EINVAL;
	return spc_set_resume_addr(io, a15, core, 0);
}

void spc_cluster_down_prepare(const struct spc_io *io, bool a15)
{
	spc_global_wakeup(io, true);
	spc_cluster_powerdown(io, a15, true);
}

void spc_cluster_up(const struct spc_io *io, bool a15, bool other_armed)
{
	spc_cluster_powerdown(io, a15, false);
	if (!other_armed)
		spc_global_wakeup(io, false);
}

/* ---------------------------------------------------------------- DVFS */

void spc_perf_init(struct spc_perf *p, const struct spc_io *io, uint32_t a15_cluster)
{
	memset(p, 0, sizeof(*p));
	p->io = *io;
	p->a15_cluster = a15_cluster;
	p->lock = (spinlock_t)SPINLOCK_INIT;
	p->inflight = -1;
	p->inflight_cluster = -1;
}

static bool cluster_is_a15(const struct spc_perf *p, unsigned int cluster)
{
	return cluster == p->a15_cluster;	/* spc.c cluster_is_a15() */
}

static int poll_locked(struct spc_perf *p, uint64_t now_ns);

static int start_locked(struct spc_perf *p, uint32_t type, int cluster, uint32_t reg, uint32_t val,
			uint64_t now_ns)
{
	if (cluster >= SPC_CLUSTERS)
		return SPC_EINVAL;
	/* spc.c: one request at a time (info->sem); the one in flight may have ended unseen. */
	if (p->inflight >= 0 && poll_locked(p, now_ns) == SPC_PENDING)
		return SPC_EBUSY;
	/* A response left from an abandoned request must not answer this one. */
	(void)p->io.read(p->io.ctx, SPC_PWC_STATUS);
	p->inflight = (int)type;
	p->inflight_cluster = cluster;
	p->inflight_level = val;
	p->deadline_ns = now_ns + SPC_TIMEOUT_NS;
	if (cluster >= 0)
		p->result[cluster] = SPC_PENDING;
	p->io.write(p->io.ctx, reg, val);
	return 0;
}

/* The request in flight, polled once: ve_spc_irq_handler + ve_spc_waitforcompletion without the wait. */
static int poll_locked(struct spc_perf *p, uint64_t now_ns)
{
	uint32_t type, status;
	int ret;

	if (p->inflight < 0)
		return 0;
	type = (uint32_t)p->inflight;
	status = p->io.read(p->io.ctx, SPC_PWC_STATUS);
	if (status & SPC_RESPONSE(type)) {
		ret = (status & SPC_STAT_COMPLETE(type)) ? 0 : SPC_EIO;
		/* vexpress-spc-cpufreq.c ve_spc_cpufreq_set_rate: the rate read back must be the one asked for. */
		if (ret == 0 && type != SPC_REQ_SYS_CFG &&
		    p->io.read(p->io.ctx, type == SPC_REQ_A15_DVFS ? SPC_PERF_LVL_A15 : SPC_PERF_LVL_A7) !=
			    p->inflight_level)
			ret = SPC_EIO;
	} else if (now_ns > p->deadline_ns) {
		ret = SPC_ETIMEDOUT;
	} else {
		return SPC_PENDING;
	}
	if (p->inflight_cluster >= 0)
		p->result[p->inflight_cluster] = ret;
	p->inflight = -1;
	p->inflight_cluster = -1;
	return ret;
}

int spc_request_start(struct spc_perf *p, uint32_t type, int cluster, uint32_t reg, uint32_t val, uint64_t now_ns)
{
	unsigned long flags = spin_lock_irqsave(&p->lock);
	int ret = start_locked(p, type, cluster, reg, val, now_ns);

	spin_unlock_irqrestore(&p->lock, flags);
	return ret;
}

int spc_request_poll(struct spc_perf *p, uint64_t now_ns)
{
	unsigned long flags = spin_lock_irqsave(&p->lock);
	int ret = poll_locked(p, now_ns);

	spin_unlock_irqrestore(&p->lock, flags);
	return ret;
}

int spc_read_opps(struct spc_perf *p, unsigned int cluster, uint64_t (*now_ns)(void))
{
	struct spc_opp_table *t;
	uint32_t off;

	if (cluster >= SPC_CLUSTERS)
		return SPC_EINVAL;
	t = &p->opps[cluster];
	t->nr = 0;
	off = cluster_is_a15(p, cluster) ? SPC_A15_PERFVAL_BASE : SPC_A7_PERFVAL_BASE;
	for (int n = 0; n < SPC_MAX_OPPS; n++, off += 4u) {
		uint32_t w;
		int ret = spc_request_start(p, SPC_REQ_SYS_CFG, -1, SPC_COMMS,
					    SPC_SYSCFG_START | SPC_SYSCFG_SCC | (off >> 2), now_ns());

		if (ret == 0)
			do
				ret = spc_request_poll(p, now_ns());
			while (ret == SPC_PENDING);
		if (ret != 0) {
			t->nr = 0;
			return ret;
		}
		w = p->io.read(p->io.ctx, SPC_SYSCFG_RDATA);
		t->khz[n] = SPC_OPP_KHZ(w);
		t->uv[n] = SPC_OPP_UV(w);
	}
	t->nr = SPC_MAX_OPPS;
	return 0;
}

int spc_khz_to_level(const struct spc_opp_table *t, uint32_t khz)
{
	int best = SPC_EINVAL;

	/* The table need not be sorted: the slowest level that is fast enough (spc.c ve_spc_round_performance). */
	for (int n = 0; n < t->nr; n++)
		if (t->khz[n] >= khz && (best < 0 || t->khz[n] < t->khz[best]))
			best = n;
	return best;
}

enum spc_tables spc_compare_tables(const struct spc_opp_table *t, const uint32_t *khz, int n)
{
	enum spc_tables ret = n == t->nr ? SPC_TABLES_SAME : SPC_TABLES_DIFFER;

	for (int i = 0; i < n; i++) {
		int level = spc_khz_to_level(t, khz[i]);

		if (level < 0)
			return SPC_TABLES_UNREACHABLE;
		if (t->khz[level] != khz[i])
			ret = SPC_TABLES_DIFFER;
	}
	return ret;
}

int spc_perf_request(struct spc_perf *p, unsigned int cluster, uint32_t khz, uint64_t now_ns)
{
	bool a15;
	int level;

	if (cluster >= SPC_CLUSTERS)
		return SPC_EINVAL;
	level = spc_khz_to_level(&p->opps[cluster], khz);
	if (level < 0)
		return SPC_EINVAL;
	a15 = cluster_is_a15(p, cluster);
	return spc_request_start(p, a15 ? SPC_REQ_A15_DVFS : SPC_REQ_A7_DVFS, (int)cluster,
				 a15 ? SPC_PERF_LVL_A15 : SPC_PERF_LVL_A7, (uint32_t)level, now_ns);
}

int spc_perf_poll(struct spc_perf *p, unsigned int cluster, uint64_t now_ns)
{
	unsigned long flags;
	int ret;

	if (cluster >= SPC_CLUSTERS)
		return SPC_EINVAL;
	flags = spin_lock_irqsave(&p->lock);
	/* Whichever request is in flight: the other cluster's ending frees the SPC for the next. */
	(void)poll_locked(p, now_ns);
	ret = p->result[cluster];
	spin_unlock_irqrestore(&p->lock, flags);
	return ret;
}

int spc_perf_level(const struct spc_perf *p, unsigned int cluster)
{
	uint32_t level;

	if (cluster >= SPC_CLUSTERS)
		return SPC_EINVAL;
	level = p->io.read(p->io.ctx, cluster_is_a15(p, cluster) ? SPC_PERF_LVL_A15 : SPC_PERF_LVL_A7);
	return level < (uint32_t)p->opps[cluster].nr ? (int)level : SPC_EINVAL;
}

/* ---------------------------------------------------------------- SCC */

int tc2_scc_find(const struct fdt *fdt, uint64_t *base)
{
	int scc = fdt_find_compatible(fdt, -1, "arm,vexpress-scc");
	uint64_t size;

	if (scc < 0 || !fdt_node_enabled(fdt, scc) || fdt_reg(fdt, scc, 0, base, &size) != 0)
		return -1;
	return scc;
}

int tc2_scc_a15_cluster(uint32_t a15_conf, uint32_t a7_conf)
{
	uint32_t a15 = a15_conf & 0xfu, a7 = a7_conf & 0xfu;	/* tc2_pm.c: readl(scc + A15_CONF) & 0xf */

	if (a15 >= SPC_CLUSTERS || a7 >= SPC_CLUSTERS || a15 == a7)
		return -1;
	return (int)a15;
}
