/*
 * Frequency scaling (DVFS): frequency domains, their operating points (OPPs),
 * the governor that picks each domain's OPP and the back end that asks the
 * hardware for it (docs/cpufreq.md, spec "Frequency (DVFS)").
 *
 * A frequency domain is a set of CPUs sharing one clock: the CPUs whose cpu
 * nodes name the same `operating-points-v2` table (the table must say
 * `opp-shared` when it serves several CPUs). Domains are numbered in the
 * order of their first CPU and reported as cluster<k>, k the topology's
 * cluster of that CPU. A board whose DT has no tables has no domains: every
 * CPU runs at its one (top) OPP, as before DVFS; every call below is then a
 * no-op.
 *
 * Concurrency: a domain's lock orders governor decisions and back-end
 * requests; d->cur is written under it and read locklessly (a word).
 * cpufreq_scale(cpu) is the per-CPU frequency scale (1024 = the domain's top
 * OPP), kept in the CPU's rq (rq->freq_scale), written by whoever changes
 * the domain's OPP, read locklessly by the CPU's PELT updates.
 */
#ifndef KERNEL_CPUFREQ_H
#define KERNEL_CPUFREQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/lib/cpumask.h"
#include "kernel/lib/linked_table.h"
#include "kernel/lib/static_branch.h"
#include "kernel/sched/topology.h"
#include "arch/spinlock.h"

#define CPUFREQ_MAX_OPPS 16
#define CPUFREQ_MAX_DOMAINS 8
#define CPUFREQ_SCALE 1024u

struct fdt;
struct freq_domain;
struct rail;

/*
 * A back end: how a domain's clock is changed. One is in force (the board's
 * driver, the simulator's, or `none`: nothing changes speed, QEMU's case).
 *   set(d, opp)  start the move of @d to OPP @opp (an index of d->khz).
 *                Called with d->lock held and IRQs off: it must not wait
 *                for the hardware; 0, or a negative errno (the domain then
 *                keeps its OPP and the governor tries again later).
 *   busy(d)      optional: a transition @d's back end started is still in
 *                progress (no new request until it is not).
 * scales_time: work really runs at the frequency (a board, the simulator);
 * false for QEMU, whose RESULT lines then carry freq_speed=none.
 */
struct cpufreq_backend {
	const char *name;
	bool scales_time;
	int (*set)(struct freq_domain *d, int opp);
	bool (*busy)(const struct freq_domain *d);
};

/* Why the scheduler calls cpufreq_update(): the governor may treat them differently. */
enum cpufreq_event {
	CPUFREQ_ENQUEUE,
	CPUFREQ_DEQUEUE,
	CPUFREQ_TICK,
	/* Looked at now, whenever the CPU last looked (cpufreq_update()): */
	CPUFREQ_NEW,		/* a new task's first share joined the CPU's util */
	CPUFREQ_RT,		/* an RT task became runnable: top OPP */
};

/*
 * A governor: one file under kernel/sched/ declaring it with
 * CPUFREQ_GOVERNOR() (collected at link time, as pack policies are).
 *   start(d)             the governor takes @d (boot, or a switch): returns
 *                        the OPP to run at now.
 *   update(d, cpu, now, ev)  the scheduler's update on @cpu of @d, with
 *                        @cpu's rq lock held and IRQs off, NOT d->lock (the
 *                        common answer, "no change", takes no shared lock):
 *                        the OPP @d should run at, or -1 for no change. It
 *                        may write per-CPU state of @cpu only and read the
 *                        domain locklessly; the core then moves @d under
 *                        d->lock. O(CPUs of @d).
 *   opp_for_util(d, util)  the OPP it would pick if the busiest CPU of @d
 *                        had @util (0..1024 of the top OPP's capacity): what
 *                        placement estimates energy at (pack=energy).
 * NULL update: the governor never changes the OPP by itself (performance,
 * powersave, userspace); NULL opp_for_util: the OPP @d is at.
 */
struct cpufreq_governor {
	const char *name;
	const char *desc;
	int (*start)(struct freq_domain *d);
	int (*update)(struct freq_domain *d, int cpu, uint64_t now, enum cpufreq_event ev);
	int (*opp_for_util)(const struct freq_domain *d, uint32_t util);
};

/* Declares @gov (a const struct cpufreq_governor of this file) in the section cpufreq_governors. */
#define CPUFREQ_GOVERNOR(gov, rank) LINKED_ENTRY(cpufreq_governors, gov, rank)

struct freq_domain {
	spinlock_t lock;
	int id;				/* index in the domain table */
	int cluster;			/* topology cluster of its first CPU (cluster<k>) */
	int first_cpu;
	cpumask_t cpus;
	int nr_opps;
	uint32_t khz[CPUFREQ_MAX_OPPS];	/* ascending */
	uint32_t uv[CPUFREQ_MAX_OPPS];	/* 0: not given */
	uint32_t latency_ns;		/* clock-latency-ns (the table's largest) */
	int cur;			/* the OPP in effect */
	const struct cpufreq_governor *gov;
	uint32_t user_khz;		/* the userspace governor's setting */
	uint64_t last_change_ns;	/* when cur last changed (the rate limit's start) */
	/* time_in_state: ns at each OPP up to opp_since_ns, plus the current stretch */
	uint64_t opp_ns[CPUFREQ_MAX_OPPS];
	uint64_t opp_since_ns;
	uint64_t khz_ns;		/* integral of khz x ns (for the average) */
	uint64_t nr_transitions;
	uint32_t rate_limit_ns;		/* no governor change sooner than this after the last */
	uint32_t look_ns;		/* a CPU's governor looks again this long after its last look */
	bool inefficient[CPUFREQ_MAX_OPPS];	/* a higher OPP does the work for less energy */
	/*
	 * Energy by OPP: the rail that is exactly this domain integrates its
	 * busy energy at these powers (rail_set_dvfs(), copied from the energy
	 * model by cpufreq_model_ready()); NULL: none (top-OPP powers).
	 */
	struct rail *rail;
	uint32_t core_power[CPUFREQ_MAX_OPPS], rail_power[CPUFREQ_MAX_OPPS];
};

/* --- OPP tables from the DT (pure: host tests) --- */
struct cpufreq_dt {
	int nr_domains;
	struct freq_domain dom[CPUFREQ_MAX_DOMAINS];
	int16_t cpu_domain[TOPO_MAX_CPUS];	/* -1: none */
};
/*
 * Read every cpu node's operating-points-v2 table for the CPUs of @topo.
 * Returns 0 (out->nr_domains may be 0: no tables), or -1 with @err naming
 * node and property: a table that is not sorted by opp-hz, holds more than
 * CPUFREQ_MAX_OPPS or none, a frequency that does not fit in kHz, a table
 * shared by CPUs without opp-shared, CPUs of one cluster naming different
 * tables, some CPUs with a table and others without.
 */
int cpufreq_parse_dt(const struct fdt *fdt, const struct topology *topo, struct cpufreq_dt *out, char *err,
		     size_t errlen);

/* --- the kernel's domains --- */
void cpufreq_init_dt(const struct fdt *fdt);	/* after the topology and idle states, before the energy model */
const struct cpufreq_dt *cpufreq_table(void);
struct energy_model;
/*
 * With the energy model bound (energy_init_dt()): mark each domain's
 * inefficient OPPs (a higher OPP costs less energy per unit of work, its
 * cluster's power with one CPU busy counted) and set the rate limit.
 */
void cpufreq_model_ready(const struct energy_model *m);
int cpufreq_nr_domains(void);
struct freq_domain *cpufreq_domain(int i);
struct freq_domain *cpufreq_domain_of(int cpu);	/* NULL: no DVFS for @cpu */
extern bool cpufreq_enabled;	/* some domain of several OPPs has a governor that decides (the hooks run) */
/* Per CPU, for governors: times it entered idle (written by the CPU itself, read by its domain's others). */
extern uint64_t cpufreq_idle_calls[TOPO_MAX_CPUS];

/* @cpu enters idle (the idle path calls it). */
static inline void cpufreq_note_idle(int cpu)
{
	cpufreq_idle_calls[cpu]++;
}

/* The governor named by a boot argument (cpufreq=@arg, NULL: absent) on every domain; an unknown name prints
 * `@who: error: unknown cpufreq governor ...; using performance`. */
void cpufreq_governor_from_arg(const char *arg, const char *who);

/* @cpu's frequency scale now: its rq's freq_scale (CPUFREQ_SCALE at the top OPP, and without DVFS). */
uint32_t cpufreq_scale(int cpu);

/* OPP @opp's frequency over @d's top one, x CPUFREQ_SCALE: the speed work runs at there. */
static inline uint32_t cpufreq_opp_scale(const struct freq_domain *d, int opp)
{
	return (uint32_t)((uint64_t)d->khz[opp] * CPUFREQ_SCALE / d->khz[d->nr_opps - 1]);
}

/*
 * When @cpu's governor looks next (per CPU; written by the core): d->look_ns
 * after its last look or a change of its domain. Until then an update is a
 * compare; an RT task does not wait.
 */
extern uint64_t cpufreq_next_ns[TOPO_MAX_CPUS];
extern uint64_t cpufreq_tick_ns;	/* the scheduler tick's period */

/* The scheduler's hook: a NOP without a deciding governor (a static branch), a compare between its looks. */
void cpufreq_update_slow(int cpu, uint64_t now, enum cpufreq_event ev);
static inline void cpufreq_update(int cpu, uint64_t now, enum cpufreq_event ev)
{
	/* 64-bit single-copy atomic (ldrexd on ARMv7): another CPU's change of the domain writes it. */
	if (static_branch_unlikely(&cpufreq_enabled) &&
	    (ev >= CPUFREQ_NEW || (int64_t)(now - __atomic_load_n(&cpufreq_next_ns[cpu], __ATOMIC_RELAXED)) >= 0))
		cpufreq_update_slow(cpu, now, ev);
}

/* The OPP @d's governor would run at if its busiest CPU had @util (governor.opp_for_util). Lockless. */
int cpufreq_governor_opp(const struct freq_domain *d, uint32_t util);

/* Move @d to @opp now (governors, the console): back end, scale, stats, trace. Takes d->lock. */
int cpufreq_set_opp(struct freq_domain *d, int opp, uint64_t now);
/* Same with d->lock held. */
int cpufreq_set_opp_locked(struct freq_domain *d, int opp, uint64_t now);
/* The lowest OPP whose frequency is >= @khz (the top if none). */
int cpufreq_opp_at_least(const struct freq_domain *d, uint32_t khz);
/* The OPP whose frequency is exactly @khz, or -1. */
int cpufreq_opp_exact(const struct freq_domain *d, uint32_t khz);

/* Governors: the table, lookup, switching. */
const struct cpufreq_governor *cpufreq_governor_find(const char *name);
const struct cpufreq_governor *cpufreq_governor_at(int i);
const char *cpufreq_governor_list(char *buf, size_t size);
int cpufreq_set_governor(struct freq_domain *d, const struct cpufreq_governor *g, uint64_t now);
extern const struct cpufreq_governor cpufreq_gov_performance;

/* Back ends. */
void cpufreq_set_backend(const struct cpufreq_backend *b);
const struct cpufreq_backend *cpufreq_backend(void);

/* Time at each OPP of @d up to @now (a consistent copy, CPUFREQ_MAX_OPPS entries; NULL: not wanted), and kHz x ns. */
void cpufreq_residency(struct freq_domain *d, uint64_t now, uint64_t *opp_ns, uint64_t *khz_ns);
/* @d's busy energy counters (power x ns: its CPUs' cores, its rail; 0 without a rail) and kHz x ns, up to @now. */
void cpufreq_energy_counters(struct freq_domain *d, uint64_t now, uint64_t *core_pns, uint64_t *rail_pns,
			     uint64_t *khz_ns);

#endif
