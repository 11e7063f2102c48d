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
 * reaches the CCI, or while it is flushing. The protocol that orders them,
 * the probe and the SPC/CCI sequences are portable and host-tested:
 * include/drivers/tc2_pm.h, drivers/tc2_pm.c. This file gives them the
 * hardware: MMIO, the virtual counter (CNTVCT: entered from U-Boot in HYP,
 * the physical counter may trap; boot/head.S also opens it), memory to the
 * point of coherency (Linux's sync_cache_w/_r), the cache flush.
 *
 * Safety before speed (issue 38, a path never run on silicon):
 *   - entered non-secure (HYP, or the GIC's group registers read-only:
 *     include/drivers/entry_state.h): WFI-only, one boot line says why;
 *   - a CCI port that is off at boot is enabled before the secondaries are
 *     released; if it cannot be, WFI-only, and that cluster's CPUs are not
 *     released (they would run non-coherent; power_cpu_refused());
 *   - the CCI port disable failing (timeout, or the write ignored) backs out:
 *     port on again, no WFI with PWRDN_EN armed, SPC disarmed, warm boot off;
 *   - warm boot is OFF by default on a real TC2 until a board run proves it
 *     (bootarg warmboot=on or `idle warmboot on`; docs/hardware.md).
 *
 * Warm boot (include/arch/suspend.h, kernel/warmboot.h), when `idle
 * warmboot` is on (off by default, see above; @warm): every CPU entering a
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
#include "arch/suspend.h"
#include "drivers/entry_state.h"
#include "drivers/gic.h"
#include "drivers/power.h"
#include "drivers/tc2_pm.h"
#include "kernel/lib/fdt.h"
#include "kernel/lib/printk.h"

/* Cortex-A15 L2 Prefetch Control Register (CP15 c15, op1 1, c0, op2 3); tc2_pm.c writes 0x400. */
#define A15_L2PF_DISABLE 0x400u
#define MIDR_PARTNUM(m)  (((m) >> 4) & 0xfffu)
#define MIDR_IMPL(m)     ((m) >> 24)
#define PART_CORTEX_A15  0xc0fu
/* If the firmware left CNTFRQ at 0: the TC2 generic timer runs at 24 MHz (its DT). */
#define DEFAULT_CNTFRQ   24000000u

/* ---------------------------------------------------------------- hardware */

/* Read by cpu_resume's early hook with the caches off: cleaned to PoC at probe. */
static struct tc2_pm pm;
/* Per CPU (the early hook writes it with caches off). */
static struct tc2_down tc2_down_state[CONFIG_NR_CPUS];
/* Clusters whose CCI port is off and stays off: their CPUs must not be released. */
static uint32_t refused_clusters;

static uint32_t hw_read(void *ctx, uintptr_t addr)
{
	(void)ctx;
	return mmio_read32(addr);
}

static void hw_write(void *ctx, uintptr_t addr, uint32_t v)
{
	(void)ctx;
	mmio_write32(addr, v);
	dsb();
}

/* The virtual counter (CNTVCT), read without touching memory (usable with the D-cache off). */
static uint64_t hw_ticks(void *ctx)
{
	uint32_t lo, hi;

	(void)ctx;
	__asm__ volatile("isb\n\tmrrc p15, 1, %0, %1, c14" : "=r"(lo), "=r"(hi));
	return ((uint64_t)hi << 32) | lo;
}

/* Linux sync_cache_w(): the store reaches the point of coherency. */
static void hw_sync_write(void *ctx, struct tc2_sync_word *w, uint32_t v)
{
	(void)ctx;
	w->v = v;
	dsb();
	write_dccmvac((uint32_t)(uintptr_t)w);
	dsb();
}

/* Linux sync_cache_r(): clean+invalidate (never discard another CPU's store), then load. */
static uint32_t hw_sync_read(void *ctx, struct tc2_sync_word *w)
{
	(void)ctx;
	write_dccimvac((uint32_t)(uintptr_t)w);
	dsb();
	return w->v;
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

/* Leave coherency; the committed last man also disables the A15's L2 prefetch first. */
static void hw_flush(void *ctx, struct tc2_down *d, bool all)
{
	(void)ctx;
	if (all && d->a15) {
		/* tc2_pm_down(): "On the Cortex-A15 we need to disable L2 prefetching before flushing". */
		d->l2pf = read_a15_l2pfr();
		write_a15_l2pfr(A15_L2PF_DISABLE);
	}
	/* The descriptor is needed after a power loss: to memory before the flush turns C off. */
	dcache_clean_range(d, sizeof(*d));
	cpu_exit_coherency_flush(all);
}

static const struct tc2_hw tc2_hw = {
	hw_read, hw_write, hw_ticks, hw_sync_write, hw_sync_read, hw_flush, NULL,
};

static uint32_t spc_mmio_read(void *ctx, uint32_t off)
{
	return mmio_read32((uintptr_t)ctx + off);
}

static void spc_mmio_write(void *ctx, uint32_t off, uint32_t v)
{
	mmio_write32((uintptr_t)ctx + off, v);
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

/* ---------------------------------------------------------------- hooks */

static void tc2_rail_down(int rail)
{
	tc2_pm_rail_down(&pm, rail);
}

static void tc2_rail_up(int rail)
{
	tc2_pm_rail_up(&pm, rail);
}

/* Caches on again: the A15 L2 prefetch back, faults reported; a CCI fault turns warm boot off. */
static void tc2_up_report(struct tc2_down *d)
{
	if (d->all && d->a15)
		write_a15_l2pfr(d->l2pf);
	d->valid = false;
	if (tc2_pm_up_report(&pm, d)) {
		power_warmboot_refused();
		kprintf("power: tc2-spc: warm boot off: the CCI-400 did not do what the power-down path needs\n");
	}
}

/* Domain idle without warm boot: the protocol around a WFI that keeps the power on. */
static void tc2_domain_idle(bool last_man)
{
	struct tc2_down *d = &tc2_down_state[read_tpidrprw()];

	if (!tc2_pm_down_init(&pm, d, read_mpidr(), cpu_is_a15())) {
		wfi();
		return;
	}
	if (tc2_pm_down(&pm, d, last_man))
		wfi();
	tc2_pm_up_uncached(&pm, d);
	enter_coherency();
	tc2_up_report(d);
}

/* cpu_resume's early hook: the power was cut; caches and MMU are off. */
static void tc2_resume_early(int cpu)
{
	struct tc2_down *d = &tc2_down_state[cpu];

	/*
	 * Written with caches on and cleaned in hw_flush(); the cluster's caches
	 * were lost. A CPU that never went down through tc2_pm_down() (`idle
	 * resume-test` on a TC2) has nothing to rejoin.
	 */
	if (!d->valid)
		return;
	tc2_pm_up_uncached(&pm, d);
	dsb();
	dcache_clean_range(d, sizeof(*d));
}

/* cpu_suspend's finisher: power down; returns only if WFI ended with the power on. */
static int tc2_finisher(uint32_t last_man)
{
	struct tc2_down *d = &tc2_down_state[read_tpidrprw()];

	/* tc2_pm_cpu_suspend_prepare + tc2_pm_cpu_powerdown_prepare. */
	tc2_pm_cpu_spc(&pm, d->a15, d->core, true, (uint32_t)(uintptr_t)cpu_resume);
	/* Only the SPC may end this WFI (tc2_pm: "IRQ lines are cut from GIC CPU IF"). */
	gic_cpu_if_down();
	if (tc2_pm_down(&pm, d, last_man != 0))
		wfi();
	/* Still powered: an IRQ reached the core before the SPC cut the power, or the CCI refused. */
	tc2_pm_up_uncached(&pm, d);
	enter_coherency();
	return 1;
}

static void tc2_warm_idle(bool last_man)
{
	struct tc2_down *d = &tc2_down_state[read_tpidrprw()];
	int ret;

	if (!tc2_pm_down_init(&pm, d, read_mpidr(), cpu_is_a15())) {
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
	tc2_pm_cpu_spc(&pm, d->a15, d->core, false, 0);	/* tc2_pm_cpu_is_up */
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

const char *power_cpu_refused(uint32_t hwid)
{
	uint32_t cl = (hwid >> 8) & 0xff;

	return cl < TC2_CLUSTERS && (refused_clusters & (1u << cl))
		       ? "its cluster's CCI-400 port is off and could not be enabled (it would run non-coherent)"
		       : NULL;
}

int power_tc2_probe(const struct fdt *fdt, const struct power_rail *rails, int nr, struct power_ops *ops)
{
	int scc = fdt_find_compatible(fdt, -1, "arm,vexpress-scc");
	int cci = fdt_find_compatible(fdt, -1, "arm,cci-400");
	struct tc2_cpu_desc cpus[CONFIG_NR_CPUS];
	int ncpus = smp_nr_cpus();
	uint32_t freq;
	struct spc_io spc;
	struct entry_state es;
	const char *refusal;
	bool secext, igroup_writable;

	if (scc < 0 || cci < 0 || !fdt_node_enabled(fdt, scc) || !fdt_node_enabled(fdt, cci))
		return 0;
	freq = read_cntfrq();	/* only now: a core without the generic timer (A9) has no CNTFRQ */
	for (int i = 0; i < ncpus; i++)
		cpus[i] = (struct tc2_cpu_desc){ smp_cpu(i)->hwid, smp_cpu(i)->node };
	spc = (struct spc_io){ spc_mmio_read, spc_mmio_write, NULL };
	if (tc2_pm_init(&pm, &tc2_hw, &spc, freq ? freq : DEFAULT_CNTFRQ, fdt, scc, cci, cpus, ncpus, rails, nr) != 0) {
		for (int cl = 0; cl < TC2_CLUSTERS; cl++)
			if (pm.clusters[cl].valid && !pm.clusters[cl].port_on)
				refused_clusters |= 1u << cl;
		kprintf("power: tc2-spc: wfi-only: %s\n", pm.why);
		return -1;
	}
	pm.spc.ctx = (void *)pm.spc_base;
	kprintf("power: tc2-spc: SPC at 0x%lx, CCI-400 at 0x%lx%s\n", (unsigned long)pm.spc_base,
		(unsigned long)pm.cci_base, pm.summary);

	gic_security_probe(&secext, &igroup_writable);
	es = entry_state_decide(boot_entry_cpsr, secext, igroup_writable);
	refusal = entry_state_tc2_refusal(es);
	if (refusal) {
		kprintf("power: tc2-spc: wfi-only: %s\n", refusal);
		return -1;
	}
	/* Read by cpu_resume's early hook with the caches off. */
	dcache_clean_range(&pm, sizeof(pm));
	suspend_set_early_hook(tc2_resume_early);
	*ops = (struct power_ops){
		.name = "tc2-spc",
		/* Never run on silicon: off until a board run has proved it (docs/hardware.md). */
		.warmboot_default = false,
		.domain_state = tc2_domain_state,
		.rail_down = tc2_rail_down,
		.rail_up = tc2_rail_up,
	};
	kprintf("power: tc2-spc: warm boot off by default (unproven on a board): warmboot=on or `idle warmboot on` "
		"powers idle clusters off (SPC resume address = cpu_resume 0x%lx)\n",
		(unsigned long)(uintptr_t)cpu_resume);
	return 1;
}
