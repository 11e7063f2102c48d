/* TC2 cluster power management, the portable part: see include/drivers/tc2_pm.h. */
#include "drivers/tc2_pm.h"

#include <string.h>

#include "kernel/lib/cpumask.h"
#include "kernel/lib/fdt.h"
#include "kernel/lib/format.h"
#include "kernel/lib/printk.h"

/*
 * SCC (Serial Configuration Controller) of the TC2 daughterboard; Linux
 * arch/arm/mach-vexpress/tc2_pm.c (A15_CONF, A7_CONF, SPC_BASE) and the
 * CoreTile Express A15x2 A7x3 TRM (DDI 0503), SCC registers.
 */
#define SCC_A15_CONF     0x400	/* [3:0]: cluster ID (MPIDR Aff1) of the A15 cluster */
#define SCC_A7_CONF      0x500	/* [3:0]: cluster ID of the A7 cluster */
#define SCC_CLUSTER_ID   0xfu
#define SCC_SPC_OFFSET   0xb00	/* the SPC's registers inside the SCC block */

/*
 * CCI-400 (ARM DDI 0470, CoreLink CCI-400 TRM, 3.3 Register descriptions;
 * Linux drivers/bus/arm-cci.c CCI_PORT_CTRL / CCI_CTRL_STATUS).
 */
#define CCI_STATUS          0x00c	/* Status Register, at the CCI base */
#define CCI_STATUS_CHANGE_PENDING (1u << 0)	/* snoop/DVM enable change not yet applied */
#define CCI_SNOOP_CTRL      0x000	/* Snoop Control Register, at each slave-interface base */
#define CCI_SNOOP_ENABLE    (1u << 0)	/* issue snoop requests to this interface */
#define CCI_DVM_ENABLE      (1u << 1)	/* issue DVM messages to this interface */
#define CCI_SNOOP_DVM       (CCI_SNOOP_ENABLE | CCI_DVM_ENABLE)
#define CCI_SLAVE_IF(n)     (0x1000u + 0x1000u * (n))	/* slave interface n (arm-cci.c CCI_SLAVE_OFFSET) */
/*
 * TC2 wiring: the A15 cluster on slave interface 3, the A7 cluster on 4
 * (early Linux arm-cci.c: CCI400_EAG_OFFSET = CCI_SLAVE_OFFSET(3) "Eagle",
 * CCI400_KF_OFFSET = CCI_SLAVE_OFFSET(4) "Kingfisher"; Linux's TC2 DT:
 * A15 cpus cci-control-port = <&cci_control1> = slave-if@4000, A7 ->
 * slave-if@5000). Used when the cpu nodes have no cci-control-port.
 */
#define CCI_TC2_A15_IF 3
#define CCI_TC2_A7_IF  4

/* Ticks for @us at @freq, rounded up (only a timeout bound). */
static inline uint64_t us_to_ticks(uint32_t freq, uint32_t us)
{
	return (uint64_t)us * (freq / 1000000u + 1u);
}

static inline void sync_w(const struct tc2_pm *pm, struct tc2_sync_word *w, uint32_t v)
{
	pm->hw->sync_write(pm->hw->ctx, w, v);
}

static inline uint32_t sync_r(const struct tc2_pm *pm, struct tc2_sync_word *w)
{
	return pm->hw->sync_read(pm->hw->ctx, w);
}

/*
 * Write the Snoop Control Register of a slave interface, wait for the CCI
 * to apply it (TRM 3.3.4: complete the write, then poll change_pending),
 * then read it back: from non-secure state, without the CCI's Secure Access
 * Register granting it, the write is ignored (TRM 3.3.2), and an ignored
 * write must not count as done. Touches no memory (usable with caches off).
 */
enum tc2_cci_result tc2_cci_port_control(const struct tc2_pm *pm, uintptr_t port, bool enable)
{
	const struct tc2_hw *hw = pm->hw;
	uint32_t want = enable ? CCI_SNOOP_DVM : 0;
	uint64_t deadline;

	hw->write(hw->ctx, port + CCI_SNOOP_CTRL, want);
	deadline = hw->ticks(hw->ctx) + us_to_ticks(pm->freq, TC2_CCI_TIMEOUT_US);
	while (hw->read(hw->ctx, pm->cci_base + CCI_STATUS) & CCI_STATUS_CHANGE_PENDING)
		if (hw->ticks(hw->ctx) > deadline)
			return TC2_CCI_TIMEOUT;
	if ((hw->read(hw->ctx, port + CCI_SNOOP_CTRL) & CCI_SNOOP_DVM) != want)
		return TC2_CCI_IGNORED;
	return TC2_CCI_OK;
}

/* ---------------------------------------------------------------- probe */

/* The CCI slave-interface base for cluster @cl; sets *ifno. 0 if none (said why). */
static uintptr_t dt_cci_port(const struct fdt *fdt, int cci, uint64_t cci_reg, uint32_t cl, bool a15,
			     const struct tc2_cpu_desc *cpus, int ncpus, int *ifno)
{
	int want = a15 ? CCI_TC2_A15_IF : CCI_TC2_A7_IF, port = -1;
	uint64_t addr, size;
	const char *type;

	/* The binding: cpu nodes point at their slave interface with cci-control-port. */
	for (int i = 0; i < ncpus && port < 0; i++) {
		uint32_t ph;

		if (((cpus[i].hwid >> 8) & 0xff) == cl &&
		    fdt_prop_cell(fdt, cpus[i].node, "cci-control-port", 0, &ph) == 0)
			port = fdt_node_by_phandle(fdt, ph);
	}
	/* Else the TC2 wiring: the child of the CCI at offset CCI_SLAVE_IF(want). */
	for (int child = fdt_first_child(fdt, cci); child >= 0 && port < 0; child = fdt_next_sibling(fdt, child))
		if (fdt_is_compatible(fdt, child, "arm,cci-400-ctrl-if") &&
		    fdt_reg(fdt, child, 0, &addr, &size) == 0 && addr == CCI_SLAVE_IF(want))
			port = child;
	if (port < 0) {
		/* Not described at all: the documented offset from the CCI base. */
		*ifno = want;
		return (uintptr_t)(cci_reg + CCI_SLAVE_IF(want));
	}
	type = fdt_prop_string(fdt, port, "interface-type");
	if (type && strcmp(type, "ace") != 0) {
		kprintf("power: %s is an %s port, not a CPU cluster's ACE port\n", fdt_node_name(fdt, port), type);
		return 0;
	}
	if (fdt_reg(fdt, port, 0, &addr, &size) != 0 || addr < CCI_SLAVE_IF(0) || (addr & 0xfffu)) {
		kprintf("power: %s: reg is not a CCI-400 slave interface offset\n", fdt_node_name(fdt, port));
		return 0;
	}
	*ifno = (int)(addr / 0x1000u) - 1;	/* slave interface n is at 0x1000 * (n + 1) */
	/* Through the CCI node's ranges; without them, offsets from its own reg. */
	if (fdt_translate(fdt, port, &addr, NULL) != FDT_OK)
		addr += cci_reg;
	return (uintptr_t)addr;
}

/* A rail powered by the SPC is exactly one whole cluster: its TC2 cluster, or -1. */
static int rail_as_cluster(const struct power_rail *rail, const struct tc2_cpu_desc *cpus, int ncpus)
{
	int cl = -1;

	for_each_cpu(i, &rail->cpus) {
		uint32_t hwid;
		int aff1, aff0;

		if (i >= ncpus)
			return -1;
		hwid = cpus[i].hwid;
		aff1 = (int)((hwid >> 8) & 0xff);
		aff0 = (int)(hwid & 0xff);
		if (cl < 0)
			cl = aff1;
		if (aff1 != cl || aff1 >= TC2_CLUSTERS || aff0 >= TC2_MAX_CORES || (hwid >> 16))
			return -1;
	}
	for (int i = 0; i < ncpus && cl >= 0; i++)
		if ((int)((cpus[i].hwid >> 8) & 0xff) == cl && !cpumask_test(&rail->cpus, i))
			return -1;
	return cl;
}

static int probe_fail(struct tc2_pm *pm, const char *fmt, unsigned int a, unsigned int b)
{
	ksnprintf(pm->why, sizeof(pm->why), fmt, a, b);
	return -1;
}

static const char *cci_result_str(enum tc2_cci_result r)
{
	return r == TC2_CCI_TIMEOUT ? "change_pending did not clear within 10 ms"
				    : "the write was ignored (non-secure access not granted?)";
}

int tc2_pm_init(struct tc2_pm *pm, const struct tc2_hw *hw, const struct spc_io *spc, uint32_t freq,
		const struct fdt *fdt, int scc, int cci, const struct tc2_cpu_desc *cpus, int ncpus,
		const struct power_rail *rails, int nr_rails)
{
	uint64_t scc_base, cci_reg, size;
	uint32_t a15_id, a7_id;
	size_t n = 0;

	memset(pm, 0, sizeof(*pm));
	pm->hw = hw;
	pm->spc = *spc;
	pm->freq = freq;
	pm->spc_lock = (spinlock_t)SPINLOCK_INIT;
	for (int r = 0; r < POWER_MAX_RAILS; r++)
		pm->rail_cluster[r] = -1;
	if (fdt_reg(fdt, scc, 0, &scc_base, &size) != 0 || fdt_reg(fdt, cci, 0, &cci_reg, &size) != 0)
		return probe_fail(pm, "SCC or CCI-400 node without a usable reg", 0, 0);
	pm->spc_base = (uintptr_t)scc_base + SCC_SPC_OFFSET;
	pm->cci_base = (uintptr_t)cci_reg;

	/* tc2_pm_init(): which MPIDR cluster is which. */
	a15_id = hw->read(hw->ctx, (uintptr_t)scc_base + SCC_A15_CONF) & SCC_CLUSTER_ID;
	a7_id = hw->read(hw->ctx, (uintptr_t)scc_base + SCC_A7_CONF) & SCC_CLUSTER_ID;
	if (a15_id >= TC2_CLUSTERS || a7_id >= TC2_CLUSTERS || a15_id == a7_id)
		return probe_fail(pm, "SCC reports A15 cluster %u, A7 cluster %u: not a TC2", a15_id, a7_id);
	if (nr_rails > POWER_MAX_RAILS)
		return probe_fail(pm, "more than %u rails", POWER_MAX_RAILS, 0);
	pm->nr_rails = nr_rails;

	for (int r = 0; r < nr_rails; r++) {
		int cl = rail_as_cluster(&rails[r], cpus, ncpus);
		struct tc2_cluster *c;

		if (cl < 0 || pm->clusters[cl].valid) {
			kprintf("power: rail %d is not one whole TC2 cluster: its state is modelled only\n", r);
			continue;
		}
		c = &pm->clusters[cl];
		c->rail = r;
		c->a15 = (uint32_t)cl == a15_id;
		for_each_cpu(i, &rails[r].cpus)
			c->cores |= 1u << (cpus[i].hwid & 0xff);
		c->cci_port = dt_cci_port(fdt, cci, cci_reg, (uint32_t)cl, c->a15, cpus, ncpus, &c->cci_if);
		if (!c->cci_port) {
			kprintf("power: no CCI-400 slave interface for cluster %d: its state is modelled only\n", cl);
			continue;
		}
		c->valid = true;
		pm->rail_cluster[r] = cl;
	}

	/*
	 * A port the firmware left off: on now, before the secondaries are
	 * released (their caches are off and empty, so snooping them is safe);
	 * Linux does it for the first CPU up in each cluster
	 * (tc2_pm.c -> cci_enable_port_for_self). If it does not take, no
	 * cluster power-down is safe: the caller falls back to WFI-only.
	 */
	for (int cl = 0; cl < TC2_CLUSTERS; cl++) {
		struct tc2_cluster *c = &pm->clusters[cl];
		enum tc2_cci_result res = TC2_CCI_OK;
		bool was_off;

		if (!c->valid)
			continue;
		was_off = (hw->read(hw->ctx, c->cci_port + CCI_SNOOP_CTRL) & CCI_SNOOP_DVM) != CCI_SNOOP_DVM;
		if (was_off)
			res = tc2_cci_port_control(pm, c->cci_port, true);
		c->port_on = res == TC2_CCI_OK;
		if (!c->port_on) {
			if (!pm->why[0])
				ksnprintf(pm->why, sizeof(pm->why),
					  "CCI-400 slave interface %d (cluster %d) was off at boot and enabling it failed: %s",
					  c->cci_if, cl, cci_result_str(res));
			continue;
		}
		n += (size_t)ksnprintf(pm->summary + n, n < sizeof(pm->summary) ? sizeof(pm->summary) - n : 0,
				       "; cluster %d (%s) = rail %d, CCI S%d at 0x%lx%s", cl, c->a15 ? "A15" : "A7",
				       c->rail, c->cci_if, (unsigned long)c->cci_port,
				       was_off ? " (snoops were off at boot: enabled)" : "");
	}
	if (pm->why[0])
		return -1;

	/* Protocol words: CPUs in the DT start UP (one that never arrives keeps its cluster on). */
	for (int cl = 0; cl < TC2_CLUSTERS; cl++) {
		sync_w(pm, &pm->cluster_state[cl], TC2_CLUSTER_UP);
		for (int c = 0; c < TC2_MAX_CORES; c++)
			sync_w(pm, &pm->cpu_state[cl][c], (pm->clusters[cl].cores >> c) & 1u ? TC2_CPU_UP : TC2_CPU_DOWN);
	}
	return 0;
}

/* ---------------------------------------------------------------- SPC */

/* tc2_pm_down(), last man: the cluster powers off once all its CPUs are in WFI. */
static void spc_arm(struct tc2_pm *pm, int cl)
{
	unsigned long flags = spin_lock_irqsave(&pm->spc_lock);

	spc_cluster_down_prepare(&pm->spc, pm->clusters[cl].a15);
	pm->clusters_armed |= 1u << cl;
	spin_unlock_irqrestore(&pm->spc_lock, flags);
}

/* tc2_pm_powered_up() / the last man backing out: undo spc_arm(). */
static void spc_disarm(struct tc2_pm *pm, int cl)
{
	unsigned long flags = spin_lock_irqsave(&pm->spc_lock);

	pm->clusters_armed &= ~(1u << cl);
	spc_cluster_up(&pm->spc, pm->clusters[cl].a15, pm->clusters_armed != 0);
	spin_unlock_irqrestore(&pm->spc_lock, flags);
}

void tc2_pm_cpu_spc(struct tc2_pm *pm, bool a15, uint32_t core, bool down, uint32_t resume_addr)
{
	unsigned long flags = spin_lock_irqsave(&pm->spc_lock);

	if (down)
		spc_cpu_down_prepare(&pm->spc, a15, core, resume_addr);
	else
		spc_cpu_up(&pm->spc, a15, core);
	spin_unlock_irqrestore(&pm->spc_lock, flags);
}

static int rail_cl(const struct tc2_pm *pm, int rail)
{
	return rail < 0 || rail >= pm->nr_rails ? -1 : pm->rail_cluster[rail];
}

void tc2_pm_rail_down(struct tc2_pm *pm, int rail)
{
	int cl = rail_cl(pm, rail);

	if (cl >= 0)
		spc_arm(pm, cl);
}

void tc2_pm_rail_up(struct tc2_pm *pm, int rail)
{
	int cl = rail_cl(pm, rail);

	if (cl < 0)
		return;
	/*
	 * A CPU that woke through tc2_pm_up_uncached() has already turned the
	 * port on; one that did not (a secondary arriving) needs it now.
	 */
	if (sync_r(pm, &pm->cluster_state[cl]) == TC2_CLUSTER_DOWN) {
		enum tc2_cci_result res = tc2_cci_port_control(pm, pm->clusters[cl].cci_port, true);

		if (res != TC2_CCI_OK)
			kprintf("power: CCI-400 slave interface %d: enabling failed: %s\n", pm->clusters[cl].cci_if,
				cci_result_str(res));
		sync_w(pm, &pm->cluster_state[cl], TC2_CLUSTER_UP);
	}
	spc_disarm(pm, cl);
}

/* ---------------------------------------------------------------- protocol */

bool tc2_pm_down_init(const struct tc2_pm *pm, struct tc2_down *d, uint32_t mpidr, bool a15)
{
	memset(d, 0, sizeof(*d));
	d->cl = (mpidr >> 8) & 0xff;
	d->core = mpidr & 0xff;
	d->a15 = a15;
	return d->cl < TC2_CLUSTERS && d->core < TC2_MAX_CORES && pm->clusters[d->cl].valid;
}

/*
 * Every other CPU of @d's cluster DOWN? With @wait, CPUs still GOING_DOWN
 * are waited for (their L1 must be clean before the L2 is), at most
 * TC2_GOING_DOWN_TIMEOUT_US each. Another last man is not waited for: two
 * overlapping last men would wait for each other; both back out at once.
 */
static bool others_down(struct tc2_pm *pm, const struct tc2_down *d, bool wait)
{
	const struct tc2_hw *hw = pm->hw;

	for (uint32_t i = 0; i < TC2_MAX_CORES; i++) {
		uint64_t deadline;
		uint32_t st;

		if (i == d->core)
			continue;
		deadline = hw->ticks(hw->ctx) + us_to_ticks(pm->freq, TC2_GOING_DOWN_TIMEOUT_US);
		while ((st = sync_r(pm, &pm->cpu_state[d->cl][i])) == TC2_CPU_GOING_DOWN && wait &&
		       hw->ticks(hw->ctx) < deadline)
			;
		/* Another last man (TC2_CPU_LAST_MAN), an UP CPU, or one still flushing: not all down. */
		if (st != TC2_CPU_DOWN)
			return false;
	}
	return true;
}

bool tc2_pm_down(struct tc2_pm *pm, struct tc2_down *d, bool last_man)
{
	const struct tc2_hw *hw = pm->hw;
	enum tc2_cci_result res = TC2_CCI_OK;

	/* __mcpm_cpu_going_down; a last man says so (others_down()). */
	sync_w(pm, &pm->cpu_state[d->cl][d->core], last_man ? TC2_CPU_LAST_MAN : TC2_CPU_GOING_DOWN);
	d->all = false;
	if (last_man) {
		/* __mcpm_outbound_enter_critical(): commit, unless a CPU of the cluster is up. */
		sync_w(pm, &pm->cluster_state[d->cl], TC2_CLUSTER_GOING_DOWN);
		d->all = others_down(pm, d, true);
		if (d->all) {
			/*
			 * Two last men can overlap (the first still flushing when a CPU
			 * that woke and went idle again becomes the next one); one that
			 * backs out writes UP, possibly over our GOING_DOWN, before it
			 * says DOWN. So once every other CPU is DOWN (nobody but a
			 * waking CPU writes the cluster word from then on): say it
			 * again, check again without waiting, and confirm it held.
			 */
			sync_w(pm, &pm->cluster_state[d->cl], TC2_CLUSTER_GOING_DOWN);
			d->all = others_down(pm, d, false) &&
				 sync_r(pm, &pm->cluster_state[d->cl]) == TC2_CLUSTER_GOING_DOWN;
		}
		if (!d->all) {
			/*
			 * Back out (tc2_pm_down(): "If last man then undo any setup done
			 * previously"): the CPU that is up will run the first-man hook; a
			 * CPU that never arrived sits in the firmware's WFI, so the SPC must
			 * not be left armed.
			 */
			sync_w(pm, &pm->cluster_state[d->cl], TC2_CLUSTER_UP);
			spc_disarm(pm, (int)d->cl);
		}
	}
	d->valid = true;
	hw->flush(hw->ctx, d, d->all);
	if (d->all) {
		/* cci_disable_port_by_cpu(): the cluster's caches are clean, it leaves the coherent domain. */
		res = tc2_cci_port_control(pm, pm->clusters[d->cl].cci_port, false);
		if (res == TC2_CCI_OK) {
			sync_w(pm, &pm->cluster_state[d->cl], TC2_CLUSTER_DOWN);
		} else {
			/*
			 * The port is in an unknown state: never WFI with PWRDN_EN armed
			 * (the SPC would cut a cluster the CCI may still snoop). Put the
			 * port back on, leave the cluster UP; tc2_pm_up_report() disarms.
			 */
			d->cci_off_timeout = res == TC2_CCI_TIMEOUT;
			d->cci_off_ignored = res == TC2_CCI_IGNORED;
			(void)tc2_cci_port_control(pm, pm->clusters[d->cl].cci_port, true);
			sync_w(pm, &pm->cluster_state[d->cl], TC2_CLUSTER_UP);
		}
	}
	sync_w(pm, &pm->cpu_state[d->cl][d->core], TC2_CPU_DOWN);		/* __mcpm_cpu_down */
	return res == TC2_CCI_OK;
}

void tc2_pm_up_uncached(struct tc2_pm *pm, struct tc2_down *d)
{
	const struct tc2_hw *hw = pm->hw;
	uint64_t deadline;
	uint32_t st;

	sync_w(pm, &pm->cpu_state[d->cl][d->core], TC2_CPU_UP);
	/*
	 * Wait for a committed last man to finish, however long (as mcpm's
	 * inbound CPU does): it turns the port off after its flush without
	 * looking again, so rejoining early would leave this CPU coherent
	 * behind a port about to go off. Only reported if it took long.
	 */
	deadline = hw->ticks(hw->ctx) + us_to_ticks(pm->freq, TC2_GOING_DOWN_TIMEOUT_US);
	while ((st = sync_r(pm, &pm->cluster_state[d->cl])) == TC2_CLUSTER_GOING_DOWN)
		if (!d->wait_timeout && hw->ticks(hw->ctx) > deadline)
			d->wait_timeout = true;
	if (st != TC2_CLUSTER_UP) {
		enum tc2_cci_result res = tc2_cci_port_control(pm, pm->clusters[d->cl].cci_port, true);

		d->cci_on_timeout = res == TC2_CCI_TIMEOUT;
		d->cci_on_ignored = res == TC2_CCI_IGNORED;
		sync_w(pm, &pm->cluster_state[d->cl], TC2_CLUSTER_UP);
	}
}

bool tc2_pm_up_report(struct tc2_pm *pm, struct tc2_down *d)
{
	int ifno = pm->clusters[d->cl].cci_if;
	bool off_failed = d->cci_off_timeout || d->cci_off_ignored;

	if (off_failed) {
		spc_disarm(pm, (int)d->cl);
		kprintf("power: CCI-400 slave interface %d: disabling failed: %s; cluster %u kept on, SPC disarmed\n",
			ifno, cci_result_str(d->cci_off_timeout ? TC2_CCI_TIMEOUT : TC2_CCI_IGNORED), (unsigned)d->cl);
	}
	if (d->cci_on_timeout || d->cci_on_ignored)
		kprintf("power: CCI-400 slave interface %d: enabling failed: %s\n", ifno,
			cci_result_str(d->cci_on_timeout ? TC2_CCI_TIMEOUT : TC2_CCI_IGNORED));
	if (d->wait_timeout)
		kprintf("power: cluster %u stayed GOING_DOWN for more than %u us (its last man's flush)\n",
			(unsigned)d->cl, TC2_GOING_DOWN_TIMEOUT_US);
	return off_failed || d->cci_on_timeout || d->cci_on_ignored;
}
