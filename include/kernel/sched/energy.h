/*
 * Energy model and accounting.
 *
 * Binding (ours, after the EAS "sched-energy-costs" one): each cpu node has
 *	sched-energy-costs = <&core_cost &cluster_cost>;
 * and each cost node has
 *	busy-cost-data = <capacity power ...>;	pairs per operating point,
 *						lowest first, capacity rising:
 *						one pair per OPP of the CPU's
 *						operating-points-v2 table, or one
 *						pair (the top OPP: its power is
 *						then used at every OPP)
 *	idle-cost-data = <power ...>;		core: one per idle state of the
 *						CPU (WFI first); cluster: rail
 *						idle with CPUs in WFI first, rail
 *						off last
 * Powers are in the model's consistent units (TC2: the EAS numbers).
 *
 * energy = sum over CPUs of (busy power x busy time + idle power[s] x time
 * in s) + sum over rails of (busy power x time some CPU runs + idle power x
 * time all idle + off power x time off). Reported in power units x ms.
 */
#ifndef KERNEL_ENERGY_H
#define KERNEL_ENERGY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/sched/cpufreq.h"
#include "kernel/sched/idle.h"
#include "kernel/sched/topology.h"

struct energy_cost {
	uint32_t busy;				/* at the top OPP (the last pair) */
	uint32_t idle[IDLE_MAX_STATES];
	int nr_idle;
	int nr_opps;				/* pairs of busy-cost-data */
	uint32_t cap_opp[CPUFREQ_MAX_OPPS];
	uint32_t busy_opp[CPUFREQ_MAX_OPPS];
};

struct energy_model {
	int nr_cpus, nr_rails;
	struct energy_cost core[TOPO_MAX_CPUS];
	struct energy_cost rail[IDLE_MAX_RAILS];
	bool present;
	/*
	 * NULL when energy-aware placement has a choice to make on this
	 * machine: a model, more than one cluster, CPUs that differ in
	 * capacity or busy power. Else why not ("no energy model in the DT",
	 * "one cluster only", "all CPUs equal"): pack=energy then places by
	 * the buddy rule (docs/placement.md). Set by energy_model_parse_dt().
	 */
	const char *why_flat;
	/*
	 * DVFS (energy_model_bind_opps()): busy power at the OPP in effect.
	 * nr_domains 0: every CPU at its top OPP's power (no DVFS).
	 */
	int nr_domains;
	int16_t cpu_domain[TOPO_MAX_CPUS];	/* -1: none */
	int16_t domain_rail[CPUFREQ_MAX_DOMAINS];	/* the rail whose CPUs are exactly the domain's, or -1 */
};

/* Residency of everything at one instant: what energy is computed from. */
struct energy_snapshot {
	uint64_t t_ns;
	uint64_t cpu_busy_ns[TOPO_MAX_CPUS];
	uint64_t cpu_state_ns[TOPO_MAX_CPUS][IDLE_MAX_STATES];
	uint64_t rail_ns[IDLE_MAX_RAILS][3];	/* by enum rail_state */
	/*
	 * DVFS (0 domains without): per domain, its CPUs' core busy energy and
	 * its rail's busy energy at the OPPs in effect (power x ns), kHz x ns.
	 */
	int nr_domains;
	uint64_t dom_core_pns[CPUFREQ_MAX_DOMAINS];
	uint64_t dom_rail_pns[CPUFREQ_MAX_DOMAINS];
	uint64_t dom_khz_ns[CPUFREQ_MAX_DOMAINS];
	bool meters_ok;				/* every meter read fine */
	uint64_t meter_uj[4];			/* by meter index (energy_meter.h) */
};

struct energy_report {
	uint64_t window_ns;
	uint64_t cpu[TOPO_MAX_CPUS];		/* power units x ms */
	uint64_t rail[IDLE_MAX_RAILS];		/* rail's own (cluster) energy */
	uint64_t cluster[IDLE_MAX_RAILS];	/* rail + its CPUs */
	uint64_t total;
};

/*
 * Read the model for the CPUs of @topo whose idle states and rails are in
 * @ci / @rails. Returns 0; 1 if the DT has no model (present = false); -1
 * with @err naming the problem (bad phandle, wrong number of idle costs).
 */
int energy_model_parse_dt(const struct fdt *fdt, const struct topology *topo, const struct cpu_idle *ci,
			  int nr_rails, struct energy_model *m, char *err, size_t errlen);
/*
 * Bind @m to the frequency domains @fd (after both parsed): each CPU's core
 * and rail costs must list one pair per OPP of its domain, or one pair.
 * Returns 0, or -1 with @err naming the cost node.
 */
int energy_model_bind_opps(struct energy_model *m, const struct cpufreq_dt *fd, const struct cpu_idle *ci,
			   const struct rail *rails, char *err, size_t errlen);
/* Busy power of @c at OPP @opp of a domain of @nr_opps OPPs (the one pair when it lists one). */
static inline uint32_t energy_busy_at(const struct energy_cost *c, int opp)
{
	return c->nr_opps > 1 ? c->busy_opp[opp] : c->busy;
}
/*
 * Energy used between two snapshots. With DVFS, busy energy is what each
 * domain integrated (busy time at each OPP times that OPP's power:
 * cpufreq_energy_counters(), exact per cluster); a CPU's share of its
 * domain's core energy is its share of the domain's busy time.
 */
void energy_compute(const struct energy_model *m, const struct energy_snapshot *from,
		    const struct energy_snapshot *to, const struct rail *rails, struct energy_report *out);

/* Kernel side (kernel/sched/energy.c + drivers). */
void energy_init_dt(const struct fdt *fdt);
void energy_take_snapshot(struct energy_snapshot *s);
/*
 * The same without the hardware meters (meters_ok false): for interrupt
 * context (the trace sampler's timer), where a meter read would wait for
 * the board controller with IRQs masked (drivers/vexpress_energy.c).
 */
void energy_take_snapshot_model(struct energy_snapshot *s);
const struct energy_model *energy_model(void);
/*
 * The RESULT-line fields for the window from..to (docs/interfaces.md): energy=,
 * energy_c<k>=, cpu<n>_busy_us=, cpu<n>_idle_us=, cluster<k>_off_us=, and
 * energy_src=meter when the meters are used. Returns the length.
 */
int energy_result_fields(char *buf, size_t size, const struct energy_snapshot *from,
			 const struct energy_snapshot *to);


#endif
