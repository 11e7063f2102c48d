/*
 * The TC2 SPC register sequence of the warm-boot path, through register
 * accessors so that host tests run it against a fake MMIO block
 * (drivers/tc2_spc.c, plain C: compiled into the host library too).
 *
 * SPC (Serial Power Controller, in the TC2 SCC at +0xb00; register map as
 * Linux arch/arm/mach-vexpress/spc.c uses it):
 *   WAKE_INT_MASK 0x24: bit n = wake A15 core n, bit 4 + n = A7 core n,
 *     bits 10-11 = the global wake-ups Linux enables for a cluster-off;
 *   A15_PWRDN_EN 0x30 / A7_PWRDN_EN 0x34: 1 = the cluster loses power
 *     once all its cores are in WFI;
 *   A15_BX_ADDR0 0x68 + 4n / A7_BX_ADDR0 0x78 + 4n: core n's warm-boot
 *     address (physical; 0 = none), where the boot firmware sends it after
 *     the power comes back.
 * Linux order (tc2_pm.c): each CPU going down sets its resume address and
 * its wake-up bit (cpu_suspend_prepare, cpu_powerdown_prepare); the last
 * man also sets PWRDN_EN and the global wake-ups (cluster_powerdown_prepare);
 * each CPU coming up clears its wake-up bit and resume address
 * (cpu_is_up), the first man PWRDN_EN and the global bits (cluster_is_up).
 */
#ifndef DRIVERS_TC2_SPC_H
#define DRIVERS_TC2_SPC_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/spinlock.h"

#define SPC_WAKE_INT_MASK 0x24u
#define SPC_A15_PWRDN_EN 0x30u
#define SPC_A7_PWRDN_EN 0x34u
#define SPC_A15_BX_ADDR0 0x68u
#define SPC_A7_BX_ADDR0 0x78u
#define SPC_MAX_CORES 4u		/* mailboxes per cluster (0x68..0x74, 0x78..0x84) */
#define SPC_WAKE_GLOBAL (0x3u << 10)
#define SPC_WAKE_CPU(a15, core) ((a15) ? 1u << (core) : 1u << (4u + (core)))

struct spc_io {
	uint32_t (*read)(void *ctx, uint32_t off);
	void (*write)(void *ctx, uint32_t off, uint32_t v);
	void *ctx;
};

#define SPC_EINVAL (-22)

/* Core @core's warm-boot address (0 clears). SPC_EINVAL: no such mailbox or a misaligned address. */
int spc_set_resume_addr(const struct spc_io *io, bool a15, unsigned int core, uint32_t addr);
/* Core @core's wake-up IRQ enable. SPC_EINVAL: no such core. */
int spc_cpu_wakeup(const struct spc_io *io, bool a15, unsigned int core, bool set);
void spc_global_wakeup(const struct spc_io *io, bool set);
void spc_cluster_powerdown(const struct spc_io *io, bool a15, bool enable);

/* A CPU going down through cpu_suspend: resume address + wake-up bit (tc2_pm suspend + powerdown_prepare). */
int spc_cpu_down_prepare(const struct spc_io *io, bool a15, unsigned int core, uint32_t resume_addr);
/* The CPU is up again (or backed out): wake-up bit and resume address cleared. */
int spc_cpu_up(const struct spc_io *io, bool a15, unsigned int core);
/* The last man: cluster power-down enable and the global wake-ups. */
void spc_cluster_down_prepare(const struct spc_io *io, bool a15);
/* The first man: undo spc_cluster_down_prepare(); the global wake-ups stay if @other_armed. */
void spc_cluster_up(const struct spc_io *io, bool a15, bool other_armed);

/* ================================================================ DVFS
 *
 * Performance levels (frequency scaling), as Linux's
 * arch/arm/mach-vexpress/spc.c (later drivers/clk/versatile/
 * clk-vexpress-spc.c) drives them for drivers/cpufreq/vexpress-spc-cpufreq.c.
 * Offsets are from the SPC base (SCC + 0xb00), names as in spc.c:
 *   PERF_LVL_A15 0x00 / PERF_LVL_A7 0x08: writing a level (an index of the
 *     cluster's OPP table) requests it (ve_spc_set_performance); reading
 *     gives the level in force (ve_spc_get_performance).
 *   PERF_REQ_A15 0x04 / PERF_REQ_A7 0x0c: defined by spc.c, never accessed.
 *   COMMS 0x10: a SYSCFG request, START | function | offset >> 2
 *     (ve_spc_read_sys_cfg); its answer in SYSCFG_RDATA 0x74.
 *   PWC_STATUS 0x18: the response status, two bits per request type
 *     (STAT_COMPLETE / STAT_ERR at 4 x type); the SPC interrupt (TC2 SPI 95,
 *     level high) reports it, and ve_spc_irq_handler() only reads it.
 *   The OPP table: SYSCFG function SCC at virtual offsets A15_PERFVAL_BASE
 *     0xc10 / A7_PERFVAL_BASE 0xc30 + 4 x level, MAX_OPPS 8 of them, each
 *     word [31:20] mV, [19:0] kHz / 20 (ve_spc_populate_opps).
 * The SPC takes one request at a time (spc.c serialises DVFS and SYSCFG
 * requests behind one semaphore) and answers within 3-5 ms (spc.c's
 * TIMEOUT_US comment; it waits 20 ms).
 *
 * Here nothing waits for the interrupt: a request is started, then polled
 * (the cpufreq back end's set() may not wait: include/kernel/sched/cpufreq.h).
 * The interrupt stays masked at the GIC; the poll reads PWC_STATUS as the
 * handler does. Reading PWC_STATUS is taken to acknowledge it: Linux's
 * handler of this level-triggered interrupt does nothing else, and
 * ve_spc_init() reads it once to drop a stale status before enabling the
 * interrupt (UNVERIFIED on a board: docs/hardware.md).
 */
#define SPC_PERF_LVL_A15 0x00u		/* spc.c PERF_LVL_A15 */
#define SPC_PERF_REQ_A15 0x04u		/* spc.c PERF_REQ_A15 (unused, as in Linux) */
#define SPC_PERF_LVL_A7 0x08u		/* spc.c PERF_LVL_A7 */
#define SPC_PERF_REQ_A7 0x0cu		/* spc.c PERF_REQ_A7 (unused, as in Linux) */
#define SPC_COMMS 0x10u			/* spc.c COMMS: SYSCFG request (ve_spc_read_sys_cfg) */
#define SPC_PWC_STATUS 0x18u		/* spc.c PWC_STATUS: responses (ve_spc_irq_handler) */
#define SPC_SYSCFG_WDATA 0x70u		/* spc.c SYSCFG_WDATA (writes only; unused here) */
#define SPC_SYSCFG_RDATA 0x74u		/* spc.c SYSCFG_RDATA: a SYSCFG read's answer */
#define SPC_A15_PERFVAL_BASE 0xc10u	/* spc.c A15_PERFVAL_BASE (SYSCFG virtual offset) */
#define SPC_A7_PERFVAL_BASE 0xc30u	/* spc.c A7_PERFVAL_BASE */
#define SPC_SYSCFG_START (1u << 31)	/* spc.c SYSCFG_START */
#define SPC_SYSCFG_SCC (6u << 20)	/* spc.c SYSCFG_SCC: the function of the OPP words */
/* Request types (spc.c CA15_DVFS, CA7_DVFS, SPC_SYS_CFG) and their PWC_STATUS bits. */
#define SPC_REQ_A15_DVFS 0u
#define SPC_REQ_A7_DVFS 1u
#define SPC_REQ_SYS_CFG 2u
#define SPC_STAT_COMPLETE(type) (1u << ((type) * 4u))	/* spc.c STAT_COMPLETE */
#define SPC_STAT_ERR(type) (2u << ((type) * 4u))	/* spc.c STAT_ERR */
#define SPC_RESPONSE(type) (SPC_STAT_COMPLETE(type) | SPC_STAT_ERR(type))
#define SPC_MAX_OPPS 8			/* spc.c MAX_OPPS */
#define SPC_OPP_KHZ(w) (((w) & 0xfffffu) * 20u)	/* spc.c FREQ_MASK, MULT_FACTOR */
#define SPC_OPP_UV(w) (((w) >> 20) * 1000u)	/* spc.c VOLT_SHIFT: mV -> uV */
#define SPC_TIMEOUT_NS 20000000ull	/* spc.c TIMEOUT_US */
#define SPC_CLUSTERS 2			/* spc.c MAX_CLUSTERS: MPIDR Aff1 0 and 1 */

/*
 * SCC registers outside the SPC (Linux arch/arm/mach-vexpress/tc2_pm.c
 * A15_CONF, SPC_BASE; drivers/tc2_pm.c has the same values for its probe).
 */
#define TC2_SCC_A15_CONF 0x400u		/* [3:0]: MPIDR cluster ID of the A15 cluster */
#define TC2_SCC_A7_CONF 0x500u		/* [3:0]: MPIDR cluster ID of the A7 cluster */
#define TC2_SCC_SPC_OFFSET 0xb00u	/* the SPC inside the SCC */

#define SPC_PENDING 1			/* spc_perf_poll(): the request is still in progress */
#define SPC_EIO (-5)			/* the SPC answered STAT_ERR, or the level did not take */
#define SPC_EBUSY (-16)			/* another request is in flight (one at a time) */
#define SPC_ETIMEDOUT (-110)		/* no answer within SPC_TIMEOUT_NS */

/* A cluster's OPP table as the SPC has it: level n runs at khz[n] with uv[n]. */
struct spc_opp_table {
	int nr;
	uint32_t khz[SPC_MAX_OPPS];
	uint32_t uv[SPC_MAX_OPPS];
};

/*
 * The SPC's DVFS state. Clusters are MPIDR Aff1 values (as spc.c's
 * `cluster`); the A15 one is the SCC's A15_CONF (the rule tc2_pm_init() and
 * Linux's tc2_pm_init() use). The lock orders the one request in flight
 * (spc.c's semaphore); any CPU may start or poll.
 */
struct spc_perf {
	struct spc_io io;
	uint32_t a15_cluster;
	struct spc_opp_table opps[SPC_CLUSTERS];
	spinlock_t lock;
	int inflight;			/* request type in flight, -1: none */
	int inflight_cluster;		/* its cluster (DVFS), -1 for SYSCFG */
	uint32_t inflight_level;
	uint64_t deadline_ns;
	int result[SPC_CLUSTERS];	/* the cluster's last DVFS request: 0, SPC_PENDING or an error */
};

/* @io's ctx set by the caller; tables empty until spc_read_opps(). */
void spc_perf_init(struct spc_perf *p, const struct spc_io *io, uint32_t a15_cluster);

/*
 * Start a request of @type: @val written to @reg, after one PWC_STATUS read
 * that drops a stale response (ve_spc_init does the same). SPC_EBUSY if a
 * request is still in flight once polled (nothing written). @cluster: the
 * DVFS request's cluster, -1 for SYSCFG. The building block of both below.
 */
int spc_request_start(struct spc_perf *p, uint32_t type, int cluster, uint32_t reg, uint32_t val, uint64_t now_ns);
/* The request in flight: SPC_PENDING, 0 (completed), SPC_EIO, SPC_ETIMEDOUT (past its deadline). */
int spc_request_poll(struct spc_perf *p, uint64_t now_ns);

/*
 * (a) Read @cluster's OPP table through the SYSCFG interface
 * (ve_spc_populate_opps: SPC_MAX_OPPS reads of SYSCFG_SCC at PERFVAL_BASE +
 * 4n, each waited for, at most SPC_TIMEOUT_NS by @now_ns). Boot only: it
 * waits. 0 with p->opps[cluster] filled; else the first read's error (the
 * table is then empty: Linux's ve_spc_clk_init gives up the same way).
 */
int spc_read_opps(struct spc_perf *p, unsigned int cluster, uint64_t (*now_ns)(void));

/* (d) The level of the slowest OPP of @t at or above @khz; SPC_EINVAL if @khz is above them all. */
int spc_khz_to_level(const struct spc_opp_table *t, uint32_t khz);

/*
 * (b) Ask for the level of @khz on @cluster, without waiting
 * (ve_spc_set_performance's write of PERF_LVL_A15/A7). SPC_EINVAL: no such
 * cluster or @khz above its table (nothing written); SPC_EBUSY: a request is
 * in flight; 0: started.
 */
int spc_perf_request(struct spc_perf *p, unsigned int cluster, uint32_t khz, uint64_t now_ns);

/*
 * (c) @cluster's last request: SPC_PENDING while in flight; 0 once complete
 * and PERF_LVL reads back the level asked for (vexpress-spc-cpufreq.c's
 * ve_spc_cpufreq_set_rate checks the rate read back the same way); SPC_EIO
 * on STAT_ERR or another level read back; SPC_ETIMEDOUT past SPC_TIMEOUT_NS
 * (the request is then abandoned, as ve_spc_waitforcompletion does).
 * SPC_EINVAL: no such cluster. 0 if no request was ever made.
 */
int spc_perf_poll(struct spc_perf *p, unsigned int cluster, uint64_t now_ns);

/*
 * A DT OPP table (@khz, @n entries) against the SPC's @t: SPC_TABLES_SAME
 * (the same frequencies, each one level), SPC_TABLES_DIFFER (the DT's still
 * wins: each OPP asks for the nearest level not below it), or
 * SPC_TABLES_UNREACHABLE (some DT OPP is above every level: asking for it
 * fails).
 */
enum spc_tables { SPC_TABLES_SAME, SPC_TABLES_DIFFER, SPC_TABLES_UNREACHABLE };
enum spc_tables spc_compare_tables(const struct spc_opp_table *t, const uint32_t *khz, int n);

/* The level in force (ve_spc_get_performance); SPC_EINVAL if not a level of the table read. */
int spc_perf_level(const struct spc_perf *p, unsigned int cluster);

/*
 * The TC2 SCC in the DT, as drivers/power_tc2.c finds it ("arm,vexpress-scc",
 * enabled, first reg): its node and base, or -1.
 */
struct fdt;
int tc2_scc_find(const struct fdt *fdt, uint64_t *base);
/* The A15 cluster from the SCC's A15_CONF / A7_CONF words (tc2_pm_init's check); -1: not a TC2. */
int tc2_scc_a15_cluster(uint32_t a15_conf, uint32_t a7_conf);

/*
 * The cpufreq back end over the above (drivers/cpufreq_spc.c, ARM only):
 * when the DT has the SCC, reads both clusters' tables and registers itself
 * with cpufreq_set_backend(). Called by the cpufreq core once its domains
 * are built (cpufreq_init_dt), so that a domain's DT table can be checked
 * against the SPC's. 1: registered; 0: no SCC; negative: unusable (said why).
 */
int cpufreq_spc_init(const struct fdt *fdt);

#endif
