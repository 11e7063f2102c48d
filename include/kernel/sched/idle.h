/*
 * CPU idle: idle states from the DT, a governor that picks one, and the
 * power-domain (rail) state machine with last-man / first-man.
 *
 * States of a CPU, shallow to deep: 0 is always WFI; then the states named
 * by the cpu node's "cpu-idle-states" (core power-down); then those named by
 * its power domain's "domain-idle-states" (the whole rail off: cluster
 * power-down). All are "arm,idle-state" nodes (entry-latency-us,
 * exit-latency-us, min-residency-us, local-timer-stop).
 *
 * Governor (menu-like): predict the idle length as the time to the next
 * timer event scaled by a per-range correction factor learnt from how long
 * idles really lasted, or as the typical recent interval when the last
 * IDLE_HISTORY idles were regular; take the deepest state whose target
 * residency (min-residency, as Linux's DT idle states) fits the prediction
 * and whose latency (entry + exit, as Linux) fits the latency limit.
 *
 * Rails: a domain state is entered only when the last CPU of the rail goes
 * down asking for it (last man); the first CPU to wake restores the rail
 * (first man). One lock per rail; the platform hooks (arch/power.h) run
 * under it, so a wake-up racing with the power-down is ordered.
 *
 * Residency: per CPU (busy, each state) and per rail (busy: some CPU
 * running; idle: all idle, rail on; off), from the clock at every
 * transition, so sums are exact.
 */
#ifndef KERNEL_IDLE_H
#define KERNEL_IDLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/spinlock.h"
#include "kernel/lib/cpumask.h"
#include "kernel/sync/seqcount.h"

#define IDLE_MAX_STATES 4
#define IDLE_HISTORY 8
#define IDLE_BUCKETS 6
/* Power rails the kernel tracks: a board has a few; the simulator's machines one per cluster. */
#ifndef CONFIG_MAX_RAILS
#define CONFIG_MAX_RAILS 8
#endif
#define IDLE_MAX_RAILS CONFIG_MAX_RAILS
#define IDLE_NO_LIMIT UINT64_MAX

struct idle_state {
	char name[24];
	uint64_t entry_ns, exit_ns, min_residency_ns;
	bool domain;		/* powers the whole rail down */
	bool timer_stop;	/* local timer stops: needs the broadcast/wake-up path */
};

struct idle_gov {
	uint32_t correction[IDLE_BUCKETS];	/* measured/expected, x IDLE_CORR_ONE */
	uint64_t history[IDLE_HISTORY];		/* recent measured idle lengths */
	unsigned int hist_pos;
	uint64_t last_expected;			/* time to next timer at the last entry */
	unsigned int last_bucket;
};
#define IDLE_CORR_ONE 1024u

struct cpu_idle {
	int nr_states;
	struct idle_state states[IDLE_MAX_STATES];
	int rail;			/* index into the rails (every CPU has one) */
	struct idle_gov gov;
	/* Residency, ns. Written by the CPU itself only, under seq (readers: cpu_idle_read). */
	seqcount_t seq;
	uint64_t state_ns[IDLE_MAX_STATES];
	uint64_t usage[IDLE_MAX_STATES];
	uint64_t busy_ns;
	uint64_t since_ns;		/* start of the current busy/idle stretch */
	int cur_state;			/* -1: busy */
	/*
	 * The last idle's length, for the governor: learnt at the next entry,
	 * as Linux's menu does, so the wake-up path does not pay for it.
	 * UINT64_MAX: nothing to learn.
	 */
	uint64_t unreflected_ns;
};

enum rail_state { RAIL_BUSY, RAIL_IDLE, RAIL_OFF };

/*
 * A rail: the CPUs on one DT power line (power-domains node, or none: the
 * system rail), numbered 0.. in CPU order by idle_parse_dt(); the energy
 * model's rail costs and the platform's power hooks use the same numbers.
 */
struct rail {
	spinlock_t lock;
	cpumask_t cpus;			/* CPUs on this power line */
	cpumask_t idle;			/* of those, idle now (read without the lock by pack=energy) */
	cpumask_t want_off;		/* of those, idle in a domain state */
	/* cpus' words w_lo .. w_lo + w_n - 1 hold its CPUs (a 1024-CPU build has 32); w_n 0: all words */
	unsigned int w_lo, w_n;
	enum rail_state state;
	uint64_t since_ns;
	uint64_t residency_ns[3];	/* by enum rail_state */
	uint64_t nr_off;		/* times powered down */
	int cluster;			/* cluster index of its first CPU (for reports) */
	int node;			/* its power-domains node in the DT, -1: none (system rail) */
	/*
	 * DVFS (rail_set_dvfs(): a rail that is exactly one frequency domain):
	 * busy energy at the OPP in effect, integrated here, under the lock the
	 * idle path takes anyway. core_pns: its CPUs' core busy energy summed;
	 * rail_pns: its own busy energy; power x ns, up to since_ns.
	 */
	const uint32_t *core_power, *rail_power;	/* per OPP; NULL: no DVFS */
	int opp;
	int nr_busy;			/* CPUs not idle (kept with a DVFS) */
	uint64_t core_pns, rail_pns;
};

/* --- governor (pure) --- */
void idle_gov_init(struct idle_gov *g);
/*
 * State for an idle expected to end at the next timer in @sleep_ns, under
 * @latency_limit_ns. Records what it expected for idle_gov_reflect().
 */
int idle_gov_select(struct idle_gov *g, const struct idle_state *st, int nr, uint64_t sleep_ns,
		    uint64_t latency_limit_ns);
/* The idle just ended after @measured_ns. */
void idle_gov_reflect(struct idle_gov *g, uint64_t measured_ns);
/* What the governor would predict for @sleep_ns right now (for tests and `idle`). */
uint64_t idle_gov_predict(const struct idle_gov *g, uint64_t sleep_ns);

/* --- rails (pure state machine; hooks called via the ops) --- */
struct rail_ops {
	void (*power_down)(int rail);
	void (*power_up)(int rail);
};
void rail_init(struct rail *r, const cpumask_t *cpus, int cluster, uint64_t now);
/* Put @cpu on the rail (after rail_init(); keeps the words the idle path scans). */
void rail_add_cpu(struct rail *r, int cpu);
/*
 * @cpu of @r goes idle at @now; @domain: in a domain state. Returns true if
 * it is the last man: the rail is now RAIL_OFF and ops->power_down ran.
 * This and rail_cpu_busy(): IRQs off (the idle path's; they take the
 * rail's lock without masking them again).
 */
bool rail_cpu_idle(struct rail *r, int rail_id, int cpu, bool domain, uint64_t now, const struct rail_ops *ops);
/* @cpu wakes at @now. Returns true if it is the first man (ops->power_up ran). IRQs off. */
bool rail_cpu_busy(struct rail *r, int rail_id, int cpu, uint64_t now, const struct rail_ops *ops);
/* Residency including the current stretch up to @now (consistent copy, takes the lock). */
void rail_residency(struct rail *r, uint64_t now, uint64_t out[3]);
/*
 * DVFS: from @now on, integrate @r's busy energy at these powers per OPP
 * (arrays that outlive the rail's use), starting at OPP @opp.
 */
void rail_set_dvfs(struct rail *r, const uint32_t *core_power, const uint32_t *rail_power, int opp, uint64_t now);
/* @r's clock moved to OPP @opp at @now. */
void rail_set_opp(struct rail *r, int opp, uint64_t now);
/* @r's busy energy counters up to @now (power x ns; 0 without DVFS). */
void rail_energy(struct rail *r, uint64_t now, uint64_t *core_pns, uint64_t *rail_pns);

/* --- per-CPU residency (pure) --- */
void cpu_idle_account_enter(struct cpu_idle *ci, int state, uint64_t now);
void cpu_idle_account_exit(struct cpu_idle *ci, uint64_t now);
/* Consistent busy and per-state times of @ci up to @now, from any CPU. */
void cpu_idle_read(const struct cpu_idle *ci, uint64_t now, uint64_t *busy_ns, uint64_t state_ns[IDLE_MAX_STATES]);

/* --- DT --- */
struct fdt;
struct topology;
/*
 * Fill @ci for every CPU of @topo and the rails (one per distinct power
 * line that has domain states, plus rails without them for accounting).
 * Returns the number of rails, or -1 with a message in @err.
 */
int idle_parse_dt(const struct fdt *fdt, const struct topology *topo, struct cpu_idle *ci,
		  struct rail *rails, uint64_t now, char *err, size_t errlen);

/* --- the kernel's idle path (kernel/sched/idle.c) --- */
extern uint64_t idle_latency_limit_ns;
/* Set the limit and make idle CPUs re-choose their state under it. */
void idle_set_latency_limit(uint64_t ns);
/* Idle states and rails from the DT; hands the rails to the platform (platform_power_init). */
void idle_init_dt(const struct fdt *fdt);
/* Called by the idle loop with IRQs masked and nothing to run; returns after the wake-up. */
void cpu_idle_enter(int cpu, uint64_t next_timer_ns);
/* A secondary CPU started running (it was counted as down). */
void idle_cpu_online(int cpu);
struct cpu_idle *cpu_idle_of(int cpu);
int idle_nr_rails(void);
struct rail *idle_rail(int i);
/* The rails as an array (energy_compute reads their CPU masks). */
const struct rail *rails_base(void);

#endif
