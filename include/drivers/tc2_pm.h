/*
 * TC2 cluster power management, the portable part (drivers/tc2_pm.c, plain
 * C behind the accessors of struct tc2_hw, compiled into the host library:
 * tests/host/test_tc2_pm.c runs the probe against fake MMIO and a DT, and
 * the up/down protocol on host threads over a fake CCI-400 and SPC).
 * drivers/power_tc2.c is the ARM side: registers, caches, cpu_suspend.
 *
 * References: Linux arch/arm/mach-vexpress/tc2_pm.c and spc.c,
 * drivers/bus/arm-cci.c, arch/arm/common/mcpm_entry.c; CoreLink CCI-400
 * TRM (ARM DDI 0470) 2.2.1 and 3.3; CoreTile Express A15x2 A7x3 TRM
 * (DDI 0503) for the SCC. The register layouts are in drivers/tc2_pm.c.
 *
 * Probe (tc2_pm_init): which MPIDR cluster is the A15 one (SCC), each
 * kernel rail that is exactly one whole cluster, its CCI-400 slave
 * interface (the cpu nodes' cci-control-port, else the TC2 wiring), and
 * each port's snoop state. A port the firmware left off is enabled there,
 * before the secondaries are released (Linux enables it for the first CPU
 * up in each cluster); if the CCI does not take the write (non-secure
 * access not granted: the write is ignored) or never applies it, the probe
 * fails with the reason in pm->why and the board stays WFI-only.
 *
 * Protocol (mcpm's outbound/inbound, reduced to what TC2 needs): per CPU
 * UP / GOING_DOWN / DOWN, per cluster UP / GOING_DOWN / DOWN, words every
 * party accesses to the point of coherency (hw->sync_write/sync_read).
 *   tc2_pm_down(): the CPU says GOING_DOWN (LAST_MAN); the last man commits
 *     the cluster (GOING_DOWN), backs out if another CPU is UP or another
 *     last man is on its way (they overlap when a CPU wakes and idles again
 *     while the previous last man still flushes), waits for CPUs still
 *     GOING_DOWN, says GOING_DOWN again and confirms it held; flushes (hw->flush: L1, or L1+L2 for the
 *     committed last man); the last man turns the cluster's CCI port off
 *     and says DOWN; the CPU says DOWN. Returns false when the port did not
 *     go off (timeout, or the write ignored): the port is put back on, the
 *     cluster stays UP and the caller must not WFI with the SPC armed.
 *   tc2_pm_up_uncached(): caches still off: the CPU says UP, waits while the
 *     cluster is GOING_DOWN, and turns the port on if it is DOWN.
 * Invariant the host test checks: no CPU of a cluster runs with its caches
 * on (between up_uncached and the next down) while the cluster's port is off.
 */
#ifndef DRIVERS_TC2_PM_H
#define DRIVERS_TC2_PM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/power.h"
#include "arch/spinlock.h"
#include "drivers/power.h"
#include "drivers/tc2_spc.h"

struct fdt;

#define TC2_CLUSTERS  2		/* tc2_pm.c TC2_CLUSTERS */
#define TC2_MAX_CORES 3		/* tc2_pm.c TC2_MAX_CPUS_PER_CLUSTER */
#define TC2_SYNC_LINE 64	/* A15 and A7 cache lines: one protocol word per line */
#define TC2_CCI_TIMEOUT_US 10000	/* change_pending normally clears within microseconds */
/* The last man flushes up to 1 MiB of L2; waking CPUs wait for it at most this long. */
#define TC2_GOING_DOWN_TIMEOUT_US 100000

struct tc2_sync_word {
	volatile uint32_t v;
} __attribute__((aligned(TC2_SYNC_LINE)));

enum { TC2_CPU_DOWN = 0, TC2_CPU_UP = 1, TC2_CPU_GOING_DOWN = 2, TC2_CPU_LAST_MAN = 3 };
enum { TC2_CLUSTER_UP = 0, TC2_CLUSTER_GOING_DOWN = 1, TC2_CLUSTER_DOWN = 2 };

/* What the way down left for the way up, per CPU (written with caches off on the way up). */
struct tc2_down {
	uint32_t cl, core, l2pf;
	bool all, a15;
	bool valid;		/* tc2_pm_down() ran: an early resume hook has a way up to take */
	/* Faults seen with the caches off; reported by tc2_pm_up_report(). */
	bool cci_off_timeout, cci_off_ignored, cci_on_timeout, cci_on_ignored, wait_timeout;
} __attribute__((aligned(TC2_SYNC_LINE)));

struct tc2_hw {
	uint32_t (*read)(void *ctx, uintptr_t addr);		/* MMIO */
	void (*write)(void *ctx, uintptr_t addr, uint32_t v);
	uint64_t (*ticks)(void *ctx);				/* a counter that runs at pm->freq */
	void (*sync_write)(void *ctx, struct tc2_sync_word *w, uint32_t v);	/* store, to PoC */
	uint32_t (*sync_read)(void *ctx, struct tc2_sync_word *w);		/* from PoC */
	/* Leave coherency: L1 (@all false) or L1 + L2; @d to memory first (it is read after a power loss). */
	void (*flush)(void *ctx, struct tc2_down *d, bool all);
	void *ctx;
};

struct tc2_cluster {
	bool valid;		/* exactly one rail covers exactly its CPUs */
	bool a15;
	int rail;
	int cci_if;		/* slave interface number (for messages) */
	uintptr_t cci_port;	/* slave interface base */
	uint32_t cores;		/* bit n: core n (MPIDR Aff0) is in the DT */
	bool port_on;		/* its CCI port was found on, or enabled, at probe */
};

struct tc2_pm {
	const struct tc2_hw *hw;
	struct spc_io spc;
	uintptr_t spc_base, cci_base;
	uint32_t freq;		/* hw->ticks() per second */
	spinlock_t spc_lock;	/* WAKE_INT_MASK read-modify-write, clusters_armed */
	unsigned int clusters_armed;	/* bit cl: PWRDN_EN set */
	struct tc2_cluster clusters[TC2_CLUSTERS];
	int rail_cluster[POWER_MAX_RAILS];	/* TC2 cluster of each rail, -1: none */
	int nr_rails;
	struct tc2_sync_word cpu_state[TC2_CLUSTERS][TC2_MAX_CORES];
	struct tc2_sync_word cluster_state[TC2_CLUSTERS];
	char why[200];		/* tc2_pm_init() failed: why (one line) */
	char summary[240];	/* tc2_pm_init() succeeded: what it found */
};

/* One CPU of the DT: its MPIDR affinity and its node (for cci-control-port). */
struct tc2_cpu_desc {
	uint32_t hwid;
	int node;
};

/*
 * Probe (see above). @spc is the SPC's accessors (ctx set by the caller).
 * 0: pm ready, pm->summary says what it found; -1: unusable, pm->why says why.
 * Messages about single rails that stay modelled go to kprintf.
 */
int tc2_pm_init(struct tc2_pm *pm, const struct tc2_hw *hw, const struct spc_io *spc, uint32_t freq,
		const struct fdt *fdt, int scc, int cci, const struct tc2_cpu_desc *cpus, int ncpus,
		const struct power_rail *rails, int nr_rails);

/* CCI-400 snoop+DVM on/off for @port, waiting for change_pending and reading the value back. */
enum tc2_cci_result { TC2_CCI_OK = 0, TC2_CCI_TIMEOUT, TC2_CCI_IGNORED };
enum tc2_cci_result tc2_cci_port_control(const struct tc2_pm *pm, uintptr_t port, bool enable);

/* The kernel's rail hooks: last man arms the SPC; first man: port on if DOWN, SPC disarmed. */
void tc2_pm_rail_down(struct tc2_pm *pm, int rail);
void tc2_pm_rail_up(struct tc2_pm *pm, int rail);
/* A CPU's SPC mailbox + wake-up bit (@down) or their clearing. */
void tc2_pm_cpu_spc(struct tc2_pm *pm, bool a15, uint32_t core, bool down, uint32_t resume_addr);

/* Fill @d for the CPU @mpidr while its caches are on; false: not a CPU of a managed cluster. */
bool tc2_pm_down_init(const struct tc2_pm *pm, struct tc2_down *d, uint32_t mpidr, bool a15);
/* The way down (IRQs masked); true: go to WFI; false: backed out, do not WFI (see above). */
bool tc2_pm_down(struct tc2_pm *pm, struct tc2_down *d, bool last_man);
/* The way up, caches still off (after WFI, or from the resume hook after a power loss). */
void tc2_pm_up_uncached(struct tc2_pm *pm, struct tc2_down *d);
/*
 * Caches on again: print what went wrong and, if the port could not be
 * turned off, disarm the SPC. True if there was a CCI fault (the caller
 * turns warm boot off: the hardware does not do what the path assumes).
 */
bool tc2_pm_up_report(struct tc2_pm *pm, struct tc2_down *d);

#endif
