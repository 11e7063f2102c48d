/*
 * TC2 power back end (include/drivers/power.h): cluster power-down through
 * the Serial Power Controller and the CCI-400, when the DT has an SPC
 * ("arm,vexpress-scc": the SPC is at SCC base + 0xb00) and an "arm,cci-400".
 *
 * TC2 mode follows Linux's arch/arm/mach-vexpress/tc2_pm.c + spc.c,
 * drivers/bus/arm-cci.c and arch/arm/common/mcpm_entry.c:
 *
 *   rail_down(rail)  [platform_cluster_power_down: last man, rail lock
 *     held, caches on] warm boot on and the kernel lets the power go (no
 *     CPU of the cluster with a timer pending): the
 *     global wake-ups in WAKE_INT_MASK (ve_spc_global_wakeup_irq), then
 *     SPC <cluster>_PWRDN_EN = 1 (ve_spc_powerdown(cluster, true)). Each
 *     CPU's own wake-up bit and mailbox are set by that CPU (below).
 *   domain_state(cpu, rail, last_man, warm)  [platform_cpu_power_down in a
 *     domain state; shallower states are the front end's dsb + wfi]:
 *     leave coherency as every CPU does in tc2_pm_down(): clear
 *     SCTLR.C, clean+invalidate the D-cache by set/way to the LoUIS (L1),
 *     clear ACTLR.SMP (v7_exit_coherency_flush(louis)); then wfi.
 *     last_man: the same to the LoC (L1 + cluster L2: "flush(all)"), after
 *     disabling L2 prefetch on the A15; then the CCI slave interface of the
 *     cluster gets snoops and DVM disabled, waiting (bounded) for the CCI
 *     change_pending bit; then wfi.
 *     On wake, before caches are used again: CCI snoops/DVM back on if the
 *     cluster's port is off, ACTLR.SMP, SCTLR.C, the A15 L2 prefetch.
 *   rail_up(rail)  [platform_cluster_power_up: first man, rail lock held]
 *     PWRDN_EN = 0, global wake-ups cleared once no cluster is armed, CCI
 *     port on if still off.
 *
 * Deviation from include/arch/power.h's wording: the CCI snoops are disabled by the
 * last man inside platform_cpu_power_down(), after its caches are clean,
 * not in platform_cluster_power_down(). The CCI-400 TRM (DDI 0470, 2.2.1
 * "Removing a master from the coherent domain") requires clean caches
 * before snoops to a master are disabled, and Linux's tc2_pm_down() does
 * v7_exit_coherency_flush(all) then cci_disable_port_by_cpu(). The hook
 * only arms the SPC; the effect on the rail is the same.
 *
 * Races (mcpm's "outbound/inbound" problem): the last man goes down outside
 * the rail lock, so another CPU of the cluster may wake before the last man
 * reaches the CCI, or while it is flushing. A small mcpm-like protocol in
 * memory that every party accesses to the point of coherency (store+clean,
 * clean+invalidate+load: Linux's sync_cache_w/_r) orders them:
 *   cpu_state[cl][core]: UP / GOING_DOWN (flushing) / DOWN (out of
 *     coherency), written only by that CPU;
 *   cluster_state[cl]: UP / GOING_DOWN (last man committed) / DOWN (CCI
 *     port off).
 * The last man sets GOING_DOWN, then backs out (plain L1 flush, port left
 * on) if any other CPU of the cluster is UP; it waits for CPUs still
 * GOING_DOWN (their L1 must be clean before the L2 is). A waking CPU sets
 * itself UP, waits while the cluster is GOING_DOWN, and re-enables the port
 * if it is DOWN - all with its caches still off. This is
 * __mcpm_outbound_enter_critical() reduced to the WFI-returns case.
 *
 * Warm boot (include/arch/suspend.h, kernel/warmboot.h), when `idle
 * warmboot` is on (the default in tc2-spc mode; @warm): every CPU entering a
 * domain state goes down through cpu_suspend(): its finisher writes the
 * CPU's SPC mailbox (A15_BX_ADDR0 / A7_BX_ADDR0 + 4 * core) with cpu_resume,
 * sets its SPC wake-up bit and turns its GIC CPU interface off (Linux
 * tc2_pm_cpu_suspend_prepare / tc2_pm_cpu_powerdown_prepare), then runs the
 * protocol above and WFI. The last man arms PWRDN_EN and the global
 * wake-ups only if no CPU of the cluster has a local timer pending (no
 * broadcast timer: kernel/warmboot.h decides), and the idle path keeps a CPU
 * with a pending timer out of local-timer-stop states
 * (platform_domain_stops_timer()).
 * If the power is cut, the firmware restarts the CPU at cpu_resume, whose
 * early hook (caches off) is the wake-up half of the protocol (CCI port
 * back on); cpu_suspend then returns 0 and cpu_pm_resume() restores the GIC
 * and the local timer. If WFI returns instead (an IRQ came first), the
 * finisher undoes its steps and returns: nothing was lost.
 * UNVERIFIED without a real TC2: the firmware's use of the mailboxes, the
 * SPC waking a CPU whose GIC CPU interface is off, the CCI sequencing on a
 * real power cycle, the exit latencies (docs/hardware.md).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "arch/arm.h"
#include "arch/barrier.h"
#include "arch/power.h"
#include "arch/smp.h"
#include "arch/spinlock.h"
#include "arch/suspend.h"
#include "drivers/gic.h"
#include "drivers/power.h"
#include "drivers/tc2_spc.h"
#include "kernel/lib/fdt.h"
#include "kernel/lib/format.h"
#include "kernel/lib/printk.h"

/* ---------------------------------------------------------------- registers */

/*
 * SCC (Serial Configuration Controller) of the TC2 daughterboard; Linux
 * arch/arm/mach-vexpress/tc2_pm.c (A15_CONF, A7_CONF, SPC_BASE) and the
 * CoreTile Express A15x2 A7x3 TRM (DDI 0503), SCC registers.
 */
#define SCC_A15_CONF     0x400	/* [3:0]: cluster ID (MPIDR Aff1) of the A15 cluster */
#define SCC_A7_CONF      0x500	/* [3:0]: cluster ID of the A7 cluster */
#define SCC_CLUSTER_ID   0xfu
#define SCC_SPC_OFFSET   0xb00	/* the SPC's registers inside the SCC block */

/* SPC registers and their sequence: include/drivers/tc2_spc.h. */

/*
 * CCI-400 (ARM DDI 0470, CoreLink CCI-400 TRM, 3.3 Register descriptions;
 * Linux drivers/bus/arm-cci.c CCI_PORT_CTRL / CCI_CTRL_STATUS).
 */
#define CCI_STATUS          0x00c	/* Status Register, at the CCI base */
#define CCI_STATUS_CHANGE_PENDING (1u << 0)	/* snoop/DVM enable change not yet applied */
#define CCI_SNOOP_CTRL      0x000	/* Snoop Control Register, at each slave-interface base */
#define CCI_SNOOP_ENABLE    (1u << 0)	/* issue snoop requests to this interface */
#define CCI_DVM_ENABLE      (1u << 1)	/* issue DVM messages to this interface */
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
#define CCI_TIMEOUT_US 10000	/* change_pending normally clears within microseconds */
/* The last man flushes up to 1 MiB of L2; waking CPUs wait for it at most this long. */
#define GOING_DOWN_TIMEOUT_US 100000

/* Cortex-A15 L2 Prefetch Control Register (CP15 c15, op1 1, c0, op2 3); tc2_pm.c writes 0x400. */
#define A15_L2PF_DISABLE 0x400u
#define MIDR_PARTNUM(m)  (((m) >> 4) & 0xfffu)
#define MIDR_IMPL(m)     ((m) >> 24)
#define PART_CORTEX_A15  0xc0fu
/* If the firmware left CNTFRQ at 0: the TC2 generic timer runs at 24 MHz (its DT). */
#define DEFAULT_CNTFRQ   24000000u

#define TC2_CLUSTERS   2	/* tc2_pm.c TC2_CLUSTERS */
#define TC2_MAX_CORES  3	/* tc2_pm.c TC2_MAX_CPUS_PER_CLUSTER */

/* ---------------------------------------------------------------- state */

static uintptr_t spc_base, cci_base;
static spinlock_t spc_lock = SPINLOCK_INIT;	/* WAKE_INT_MASK read-modify-write */
static unsigned int clusters_armed;		/* bit cl: PWRDN_EN set (under spc_lock) */

struct tc2_cluster {
	bool valid;		/* exactly one rail covers exactly its CPUs */
	bool a15;
	int rail;
	int cci_if;		/* slave interface number (for messages) */
	uintptr_t cci_port;	/* slave interface base */
	uint32_t wake_bits;	/* WAKE_INT_MASK bits of its CPUs */
	uint32_t cores;		/* bit n: core n (MPIDR Aff0) is in the DT */
};
static struct tc2_cluster clusters[TC2_CLUSTERS];
static int rail_cluster[POWER_MAX_RAILS];	/* TC2 cluster of each rail, -1: none */
static int nr_rails;

/* The protocol words, one per cache line (A15 and A7 lines are 64 bytes). */
#define SYNC_LINE 64
struct sync_word {
	volatile uint32_t v;
} __attribute__((aligned(SYNC_LINE)));

enum { CPU_DOWN = 0, CPU_UP = 1, CPU_GOING_DOWN = 2 };
enum { CLUSTER_UP = 0, CLUSTER_GOING_DOWN = 1, CLUSTER_DOWN = 2 };
static struct sync_word cpu_state[TC2_CLUSTERS][TC2_MAX_CORES];
static struct sync_word cluster_state[TC2_CLUSTERS];

/* ---------------------------------------------------------------- helpers */

/* Linux sync_cache_w(): the store reaches the point of coherency. */
static inline void sync_write(struct sync_word *w, uint32_t v)
{
	w->v = v;
	dsb();
	write_dccmvac((uint32_t)(uintptr_t)w);
	dsb();
}

/* Linux sync_cache_r(): clean+invalidate (never discard another CPU's store), then load. */
static inline uint32_t sync_read(struct sync_word *w)
{
	write_dccimvac((uint32_t)(uintptr_t)w);
	dsb();
	return w->v;
}

/* Generic timer, read without touching memory (usable with the D-cache off). */
static inline uint64_t read_cntpct(void)
{
	uint32_t lo, hi;

	__asm__ volatile("isb\n\tmrrc p15, 0, %0, %1, c14" : "=r"(lo), "=r"(hi));
	return ((uint64_t)hi << 32) | lo;
}

static inline uint32_t read_cntfrq(void)
{
	uint32_t v;

	__asm__ volatile("mrc p15, 0, %0, c14, c0, 0" : "=r"(v));
	return v;
}

static inline uint32_t read_a15_l2pfr(void)
{
	uint32_t v;

	__asm__ volatile("mrc p15, 1, %0, c15, c0, 3" : "=r"(v));
	return v;
}

static inline void write_a15_l2pfr(uint32_t v)
{
	__asm__ volatile("mcr p15, 1, %0, c15, c0, 3\n\tisb\n\tdsb" :: "r"(v) : "memory");
}

/* Ticks for @us at @freq, rounded up (only a timeout bound). */
static inline uint64_t us_to_ticks(uint32_t freq, uint32_t us)
{
	return (uint64_t)us * (freq / 1000000u + 1u);
}

/*
 * Write the Snoop Control Register of a slave interface and wait for the
 * CCI to apply it (TRM 3.3.4: complete the write, then poll change_pending).
 * Touches no memory (usable with caches off). False on timeout.
 */
static bool cci_port_control(uintptr_t cci, uintptr_t port, bool enable, uint32_t freq)
{
	uint64_t deadline;

	mmio_write32(port + CCI_SNOOP_CTRL, enable ? CCI_SNOOP_ENABLE | CCI_DVM_ENABLE : 0);
	dsb();
	deadline = read_cntpct() + us_to_ticks(freq, CCI_TIMEOUT_US);
	while (mmio_read32(cci + CCI_STATUS) & CCI_STATUS_CHANGE_PENDING)
		if (read_cntpct() > deadline)
			return false;
	return true;
}

/* Back into coherency: SMP before the D-cache (Cortex-A15/A7 TRMs), as cpu_resume does. */
static void enter_coherency(void)
{
	write_actlr(read_actlr() | ACTLR_SMP);
	isb();
	write_sctlr(read_sctlr() | SCTLR_C);
	isb();
}

static bool cpu_is_a15(void)
{
	uint32_t midr = read_midr();

	return MIDR_IMPL(midr) == 0x41 && MIDR_PARTNUM(midr) == PART_CORTEX_A15;
}

/* ---------------------------------------------------------------- DT */

/* The CCI slave-interface base for cluster @cl; sets *ifno. 0 if none. */
static uintptr_t dt_cci_port(const struct fdt *fdt, int cci, uint32_t cl, bool a15, int *ifno)
{
	int want = a15 ? CCI_TC2_A15_IF : CCI_TC2_A7_IF, port = -1;
	uint64_t addr, base, size;
	const char *type;

	/* The binding: cpu nodes point at their slave interface with cci-control-port. */
	for (int i = 0; i < smp_nr_cpus() && port < 0; i++) {
		uint32_t ph;

		if (((smp_cpu(i)->hwid >> 8) & 0xff) == cl &&
		    fdt_prop_cell(fdt, smp_cpu(i)->node, "cci-control-port", 0, &ph) == 0)
			port = fdt_node_by_phandle(fdt, ph);
	}
	/* Else the TC2 wiring: the child of the CCI at offset CCI_SLAVE_IF(want). */
	for (int child = fdt_first_child(fdt, cci); child >= 0 && port < 0; child = fdt_next_sibling(fdt, child))
		if (fdt_is_compatible(fdt, child, "arm,cci-400-ctrl-if") &&
		    fdt_reg(fdt, child, 0, &addr, &size) == 0 && addr == CCI_SLAVE_IF(want))
			port = child;
	if (fdt_reg(fdt, cci, 0, &base, &size) != 0)
		return 0;
	if (port < 0) {
		/* Not described at all: the documented offset from the CCI base. */
		*ifno = want;
		return (uintptr_t)(base + CCI_SLAVE_IF(want));
	}
	type = fdt_prop_string(fdt, port, "interface-type");
	if (type && strcmp(type, "ace") != 0) {
		kprintf("power: %s is an %s port, not a CPU cluster's ACE port\n", fdt_node_name(fdt, port), type);
		return 0;
	}
	if (fdt_reg(fdt, port, 0, &addr, &size) != 0)
		return 0;
	*ifno = (int)(addr / 0x1000u) - 1;	/* slave interface n is at 0x1000 * (n + 1) */
	/* Through the CCI node's ranges; without them, offsets from its own reg. */
	if (fdt_translate(fdt, port, &addr, NULL) != FDT_OK)
		addr += base;
	return (uintptr_t)addr;
}

/*
 * SCC, SPC and CCI from the DT; each rail that is exactly one whole TC2
 * cluster (from its CPUs' MPIDR) gets the SPC and its CCI port.
 */
static bool tc2_init(const struct fdt *fdt, int scc, int cci, const struct power_rail *rails, int nr)
{
	int ncpus = smp_nr_cpus();
	uint64_t scc_base, cci_reg, size;
	uint32_t a15_id, a7_id;
	char line[240];
	size_t n = 0;

	if (fdt_reg(fdt, scc, 0, &scc_base, &size) != 0 || fdt_reg(fdt, cci, 0, &cci_reg, &size) != 0) {
		kprintf("power: SCC or CCI-400 node without a usable reg; wfi-only\n");
		return false;
	}
	spc_base = (uintptr_t)scc_base + SCC_SPC_OFFSET;
	cci_base = (uintptr_t)cci_reg;

	/* tc2_pm_init(): which MPIDR cluster is which. */
	a15_id = mmio_read32((uintptr_t)scc_base + SCC_A15_CONF) & SCC_CLUSTER_ID;
	a7_id = mmio_read32((uintptr_t)scc_base + SCC_A7_CONF) & SCC_CLUSTER_ID;
	if (a15_id >= TC2_CLUSTERS || a7_id >= TC2_CLUSTERS || a15_id == a7_id) {
		kprintf("power: SCC reports A15 cluster %u, A7 cluster %u: not a TC2; wfi-only\n",
			(unsigned)a15_id, (unsigned)a7_id);
		return false;
	}

	/* The kernel's rails, as it numbers them. */
	if (nr > POWER_MAX_RAILS) {
		kprintf("power: more than %d rails; wfi-only\n", POWER_MAX_RAILS);
		return false;
	}
	nr_rails = nr;

	memset(clusters, 0, sizeof(clusters));
	for (int r = 0; r < POWER_MAX_RAILS; r++)
		rail_cluster[r] = -1;
	for (int r = 0; r < nr_rails; r++) {
		int cl = -1;
		bool ok = true;

		/* A rail is powered by the SPC only if it is one whole cluster. */
		for_each_cpu(i, &rails[r].cpus) {
			uint32_t hwid = smp_cpu(i)->hwid;
			int aff1 = (int)((hwid >> 8) & 0xff), aff0 = (int)(hwid & 0xff);

			if (cl < 0)
				cl = aff1;
			if (aff1 != cl || aff1 >= TC2_CLUSTERS || aff0 >= TC2_MAX_CORES || (hwid >> 16))
				ok = false;
		}
		for (int i = 0; i < ncpus && ok; i++)
			if ((int)((smp_cpu(i)->hwid >> 8) & 0xff) == cl && !cpumask_test(&rails[r].cpus, i))
				ok = false;
		if (!ok || cl < 0 || clusters[cl].valid) {
			kprintf("power: rail %d is not one whole TC2 cluster: its state is modelled only\n", r);
			continue;
		}
		clusters[cl].valid = true;
		clusters[cl].rail = r;
		clusters[cl].a15 = (uint32_t)cl == a15_id;
		for_each_cpu(i, &rails[r].cpus) {
			uint32_t core = smp_cpu(i)->hwid & 0xff;

			clusters[cl].cores |= 1u << core;
			clusters[cl].wake_bits |= SPC_WAKE_CPU(clusters[cl].a15, core);
		}
		clusters[cl].cci_port = dt_cci_port(fdt, cci, (uint32_t)cl, clusters[cl].a15, &clusters[cl].cci_if);
		if (!clusters[cl].cci_port) {
			kprintf("power: no CCI-400 slave interface for cluster %d: its state is modelled only\n", cl);
			clusters[cl].valid = false;
			continue;
		}
		rail_cluster[r] = cl;
	}

	/* Protocol words: CPUs in the DT start UP (one that never arrives keeps its cluster on). */
	for (int cl = 0; cl < TC2_CLUSTERS; cl++) {
		sync_write(&cluster_state[cl], CLUSTER_UP);
		for (int c = 0; c < TC2_MAX_CORES; c++)
			sync_write(&cpu_state[cl][c], (clusters[cl].cores >> c) & 1u ? CPU_UP : CPU_DOWN);
	}

	line[0] = '\0';
	for (int cl = 0; cl < TC2_CLUSTERS && n < sizeof(line); cl++)
		if (clusters[cl].valid)
			n += (size_t)ksnprintf(line + n, sizeof(line) - n, "; cluster %d (%s) = rail %d, CCI S%d at 0x%lx%s",
					       cl, clusters[cl].a15 ? "A15" : "A7", clusters[cl].rail,
					       clusters[cl].cci_if, (unsigned long)clusters[cl].cci_port,
					       /* the boot firmware enables both ports on TC2 */
					       (mmio_read32(clusters[cl].cci_port + CCI_SNOOP_CTRL) &
						(CCI_SNOOP_ENABLE | CCI_DVM_ENABLE)) == (CCI_SNOOP_ENABLE | CCI_DVM_ENABLE)
						       ? "" : " (snoops OFF at boot)");
	kprintf("power: tc2-spc: SPC at 0x%lx, CCI-400 at 0x%lx%s\n", (unsigned long)spc_base,
		(unsigned long)cci_base, line);
	return true;
}

/* ---------------------------------------------------------------- hooks */

static uint32_t spc_mmio_read(void *ctx, uint32_t off)
{
	return mmio_read32((uintptr_t)ctx + off);
}

static void spc_mmio_write(void *ctx, uint32_t off, uint32_t v)
{
	mmio_write32((uintptr_t)ctx + off, v);
}

static struct spc_io spc_io;

static void tc2_resume_early(int cpu);

/* tc2_pm_down(), last man: the cluster powers off once all its CPUs are in WFI. */
static void spc_arm(int cl)
{
	const struct tc2_cluster *c = &clusters[cl];
	unsigned long flags = spin_lock_irqsave(&spc_lock);

	spc_cluster_down_prepare(&spc_io, c->a15);
	clusters_armed |= 1u << cl;
	spin_unlock_irqrestore(&spc_lock, flags);
}

/* tc2_pm_powered_up() / the last man backing out: undo spc_arm(). */
static void spc_disarm(int cl)
{
	const struct tc2_cluster *c = &clusters[cl];
	unsigned long flags = spin_lock_irqsave(&spc_lock);

	clusters_armed &= ~(1u << cl);
	spc_cluster_up(&spc_io, c->a15, clusters_armed != 0);
	spin_unlock_irqrestore(&spc_lock, flags);
}

/* This CPU's mailbox and wake-up bit (spc_lock: WAKE_INT_MASK is read-modify-write). */
static void spc_cpu(bool a15, uint32_t core, bool down)
{
	unsigned long flags = spin_lock_irqsave(&spc_lock);

	if (down)
		spc_cpu_down_prepare(&spc_io, a15, core, (uint32_t)(uintptr_t)cpu_resume);
	else
		spc_cpu_up(&spc_io, a15, core);
	spin_unlock_irqrestore(&spc_lock, flags);
}

/* The last man, allowed to lose the power (warm boot on, no timer pending): arm the SPC. */
static void tc2_rail_down(int rail)
{
	if (rail < 0 || rail >= nr_rails || rail_cluster[rail] < 0)
		return;
	spc_arm(rail_cluster[rail]);
}

static void tc2_rail_up(int rail)
{
	const struct tc2_cluster *c;
	int cl;

	if (rail < 0 || rail >= nr_rails || (cl = rail_cluster[rail]) < 0)
		return;
	c = &clusters[cl];
	/*
	 * A CPU that woke through platform_cpu_power_down() has already turned
	 * the port on; one that did not (a secondary arriving) needs it now.
	 */
	if (sync_read(&cluster_state[cl]) == CLUSTER_DOWN) {
		uint32_t freq = read_cntfrq();

		if (!cci_port_control(cci_base, c->cci_port, true, freq ? freq : DEFAULT_CNTFRQ))
			kprintf("power: CCI-400 change_pending did not clear within %u us enabling slave interface %d\n",
				CCI_TIMEOUT_US, c->cci_if);
		sync_write(&cluster_state[cl], CLUSTER_UP);
	}
	spc_disarm(cl);
}

/* What went wrong with the caches off; printed once they are back on. */
struct tc2_faults {
	bool cci_off_timeout, cci_on_timeout, wait_timeout;
	int cci_if;
};

/* What the way down left for the way up, per CPU (the early hook writes it with caches off). */
struct tc2_down {
	struct tc2_faults f;
	uint32_t cl, core, freq, l2pf;
	uintptr_t port, cci;
	bool all, a15;
	bool valid;		/* tc2_down() ran: the early hook has a way up to take */
} __attribute__((aligned(SYNC_LINE)));
static struct tc2_down tc2_down_state[CONFIG_NR_CPUS];

/* The way down: protocol, flush, CCI port off for the last man. IRQs masked. */
static void tc2_down(struct tc2_down *d, bool last_man)
{
	sync_write(&cpu_state[d->cl][d->core], CPU_GOING_DOWN);	/* __mcpm_cpu_going_down */
	d->all = false;
	if (last_man) {
		/* __mcpm_outbound_enter_critical(): commit, unless a CPU of the cluster is up. */
		sync_write(&cluster_state[d->cl], CLUSTER_GOING_DOWN);
		d->all = true;
		for (uint32_t i = 0; i < TC2_MAX_CORES && d->all; i++) {
			uint64_t deadline;
			uint32_t st;

			if (i == d->core)
				continue;
			deadline = read_cntpct() + us_to_ticks(d->freq, GOING_DOWN_TIMEOUT_US);
			while ((st = sync_read(&cpu_state[d->cl][i])) == CPU_GOING_DOWN && read_cntpct() < deadline)
				;
			if (st != CPU_DOWN)
				d->all = false;
		}
		if (!d->all) {
			/*
			 * Back out (tc2_pm_down(): "If last man then undo any setup done
			 * previously"): the CPU that is up will run the first-man hook; a
			 * CPU that never arrived sits in the firmware's WFI, so the SPC must
			 * not be left armed.
			 */
			sync_write(&cluster_state[d->cl], CLUSTER_UP);
			spc_disarm((int)d->cl);
		}
	}
	if (d->all && d->a15) {
		/* tc2_pm_down(): "On the Cortex-A15 we need to disable L2 prefetching before flushing". */
		d->l2pf = read_a15_l2pfr();
		write_a15_l2pfr(A15_L2PF_DISABLE);
	}
	/* The descriptor is needed after a power loss: to memory before the flush turns C off. */
	d->valid = true;
	dcache_clean_range(d, sizeof(*d));
	cpu_exit_coherency_flush(d->all);
	if (d->all) {
		/* cci_disable_port_by_cpu(): the cluster's caches are clean, it leaves the coherent domain. */
		d->f.cci_off_timeout = !cci_port_control(d->cci, d->port, false, d->freq);
		sync_write(&cluster_state[d->cl], CLUSTER_DOWN);
	}
	sync_write(&cpu_state[d->cl][d->core], CPU_DOWN);		/* __mcpm_cpu_down */
}

/*
 * The way up with the caches still off (after WFI, or from cpu_resume's
 * early hook): rejoin the protocol and the CCI before any cacheable access
 * (CCI TRM 2.2.1). Touches only @d (written through) and the sync words.
 */
static void tc2_up_uncached(struct tc2_down *d)
{
	uint64_t deadline;
	uint32_t st;

	sync_write(&cpu_state[d->cl][d->core], CPU_UP);
	deadline = read_cntpct() + us_to_ticks(d->freq, GOING_DOWN_TIMEOUT_US);
	while ((st = sync_read(&cluster_state[d->cl])) == CLUSTER_GOING_DOWN && read_cntpct() < deadline)
		;
	if (st == CLUSTER_GOING_DOWN)
		d->f.wait_timeout = true;
	if (st != CLUSTER_UP) {
		d->f.cci_on_timeout = !cci_port_control(d->cci, d->port, true, d->freq);
		sync_write(&cluster_state[d->cl], CLUSTER_UP);
	}
	dsb();
	write_dccmvac((uint32_t)(uintptr_t)&d->f);
	dsb();
}

/* Caches on again: report what went wrong. */
static void tc2_up_report(struct tc2_down *d)
{
	if (d->all && d->a15)
		write_a15_l2pfr(d->l2pf);
	if (d->f.cci_off_timeout || d->f.cci_on_timeout)
		kprintf("power: CCI-400 change_pending did not clear within %u us %s slave interface %d\n",
			CCI_TIMEOUT_US, d->f.cci_off_timeout ? "disabling" : "enabling", d->f.cci_if);
	if (d->f.wait_timeout)
		kprintf("power: cluster %u stayed GOING_DOWN for %u us; rejoined anyway\n", (unsigned)d->cl,
			GOING_DOWN_TIMEOUT_US);
}

/* Fill @d while the caches are on: everything the caches-off stretch needs. */
static bool tc2_down_init(struct tc2_down *d)
{
	uint32_t mpidr = read_mpidr();

	memset(d, 0, sizeof(*d));
	d->cl = (mpidr >> 8) & 0xff;
	d->core = mpidr & 0xff;
	if (d->cl >= TC2_CLUSTERS || d->core >= TC2_MAX_CORES || !clusters[d->cl].valid)
		return false;
	d->port = clusters[d->cl].cci_port;
	d->cci = cci_base;
	d->f.cci_if = clusters[d->cl].cci_if;
	d->a15 = cpu_is_a15();
	d->freq = read_cntfrq();
	if (!d->freq)
		d->freq = DEFAULT_CNTFRQ;
	return true;
}

/* Domain idle without warm boot: the protocol around a WFI that keeps the power on. */
static void tc2_domain_idle(bool last_man)
{
	struct tc2_down *d = &tc2_down_state[read_tpidrprw()];

	if (!tc2_down_init(d)) {
		wfi();
		return;
	}
	tc2_down(d, last_man);
	wfi();
	tc2_up_uncached(d);
	enter_coherency();
	d->valid = false;
	tc2_up_report(d);
}

/* cpu_resume's early hook: the power was cut; caches and MMU are off. */
static void tc2_resume_early(int cpu)
{
	struct tc2_down *d = &tc2_down_state[cpu];

	/*
	 * Written with caches on and cleaned in tc2_down(); the cluster's caches
	 * were lost. A CPU that never went down through tc2_down() (`idle
	 * resume-test` on a TC2) has nothing to rejoin.
	 */
	if (d->freq == 0 || !d->valid)
		return;
	tc2_up_uncached(d);
}

/* cpu_suspend's finisher: power down; returns only if WFI ended with the power on. */
static int tc2_finisher(uint32_t last_man)
{
	struct tc2_down *d = &tc2_down_state[read_tpidrprw()];

	/* tc2_pm_cpu_suspend_prepare + tc2_pm_cpu_powerdown_prepare. */
	spc_cpu(d->a15, d->core, true);
	/* Only the SPC may end this WFI (tc2_pm: "IRQ lines are cut from GIC CPU IF"). */
	gic_cpu_if_down();
	tc2_down(d, last_man != 0);
	wfi();
	/* Still powered: an IRQ reached the core before the SPC cut the power. */
	tc2_up_uncached(d);
	enter_coherency();
	return 1;
}

static void tc2_warm_idle(bool last_man)
{
	struct tc2_down *d = &tc2_down_state[read_tpidrprw()];
	int ret;

	if (!tc2_down_init(d)) {
		wfi();
		return;
	}
	cpu_pm_save();
	ret = cpu_suspend(last_man, tc2_finisher);
	power_warm_account(ret);
	if (ret == 0)
		cpu_pm_resume();	/* the power was cut: GIC CPU interface and local timer */
	else
		cpu_pm_abort();		/* only the CPU interface was turned off */
	spc_cpu(d->a15, d->core, false);	/* tc2_pm_cpu_is_up */
	d->valid = false;
	tc2_up_report(d);
}

/* A domain state: the protocol around WFI, through cpu_suspend if warm boot is on. */
static void tc2_domain_state(int cpu, int rail, bool last_man, bool warm)
{
	(void)cpu;	/* the hardware identity comes from MPIDR, as in tc2_pm_down() */
	(void)rail;
	if (warm)
		tc2_warm_idle(last_man);
	else
		tc2_domain_idle(last_man);
}

int power_tc2_probe(const struct fdt *fdt, const struct power_rail *rails, int nr, struct power_ops *ops)
{
	int scc = fdt_find_compatible(fdt, -1, "arm,vexpress-scc");
	int cci = fdt_find_compatible(fdt, -1, "arm,cci-400");

	if (scc < 0 || cci < 0 || !fdt_node_enabled(fdt, scc) || !fdt_node_enabled(fdt, cci))
		return 0;
	if (!tc2_init(fdt, scc, cci, rails, nr))
		return -1;
	spc_io = (struct spc_io){ spc_mmio_read, spc_mmio_write, (void *)spc_base };
	/* Read by cpu_resume's early hook with the caches off. */
	dcache_clean_range(clusters, sizeof(clusters));
	dcache_clean_range(&cci_base, sizeof(cci_base));
	suspend_set_early_hook(tc2_resume_early);
	*ops = (struct power_ops){
		.name = "tc2-spc",
		.warmboot_default = true,	/* a real TC2: the SPC really cuts power */
		.domain_state = tc2_domain_state,
		.rail_down = tc2_rail_down,
		.rail_up = tc2_rail_up,
	};
	kprintf("power: tc2-spc: warm boot on: idle clusters power off (SPC resume address = cpu_resume 0x%lx)\n",
		(unsigned long)(uintptr_t)cpu_resume);
	return 1;
}
