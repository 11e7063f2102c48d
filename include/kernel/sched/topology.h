/*
 * CPU topology, scheduling domains and pack buddies, from the device tree.
 *
 * CPUs are numbered in the order of the enabled cpu nodes in /cpus (the
 * same rule as the SMP code). Clusters come from /cpus/cpu-map (nesting
 * allowed) or, without one, from MPIDR Aff1. Each CPU gets a stack of
 * scheduling domains, bottom-up: the innermost cluster (MC), enclosing
 * clusters (CLS), then all CPUs (DIE); levels that span one CPU or the same
 * CPUs as the level below are dropped. A cluster level's span is every CPU
 * inside that cluster node, however deep. The groups of a domain are, for
 * each CPU in it, that CPU's largest domain strictly inside it (or the CPU
 * alone), as in Linux: so every CPU of a span sees the same groups.
 *
 * Rails: CPUs whose "power-domains" name the same node share a power rail
 * (rail_key); CPUs without one share the system rail. The kernel numbers
 * and runs the rails in kernel/sched/idle*.c (include/kernel/sched/idle.h). What
 * the pack buddy rule (docs/interfaces.md, topology_pack_buddy()) and
 * SD_SHARE_POWERLINE see is each CPU's power line, powerline[]: the CPUs
 * the placement policy treats as powered with it (include/kernel/pack/pack.h):
 * its rail for most policies, the CPU alone for pack=all.
 *
 * Everything here is plain computation on a struct topology: the kernel
 * builds one at boot, host tools and tests build their own.
 */
#ifndef KERNEL_TOPOLOGY_H
#define KERNEL_TOPOLOGY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/lib/cpumask.h"

struct pack_policy;

/* The kernel's CONFIG_NR_CPUS (8 on ARM); host tools take 1024. */
#define TOPO_MAX_CPUS CONFIG_NR_CPUS
#define TOPO_MAX_LEVELS 4
#define TOPO_MAX_DEPTH 3	/* cpu-map cluster nesting we keep */
#define TOPO_MAX_DOMAINS (TOPO_MAX_CPUS * TOPO_MAX_LEVELS)
#define CAPACITY_SCALE 1024u
#define CAPACITY_MAX 65536u	/* capacity-dmips-mhz bound: sums stay in 32 bits */

struct sched_group {
	cpumask_t cpus;
	uint32_t capacity;	/* sum of its CPUs' capacities */
	uint32_t nr_cpus;	/* cpumask_weight(&cpus), kept: a top domain of N CPUs has O(N) groups */
	int first;		/* cpumask_first(&cpus), kept: a scan starts there, not at word 0 */
};

/* sched_domain flags */
#define SD_SHARE_POWERLINE 1u	/* all CPUs of the span are on one power line */

struct sched_domain {
	const char *name;	/* "MC", "CLS", "DIE" */
	unsigned int flags;
	cpumask_t span;
	int nr_groups;
	int first_group;	/* its groups: topology.groups[first_group ..] */
	uint32_t min_interval_ms;	/* periodic balance interval when idle */
};

struct topo_cpu {
	uint32_t hwid;		/* MPIDR affinity (cpu node reg) */
	uint32_t capacity;	/* capacity-dmips-mhz, 1024 when absent */
	int cluster;		/* innermost cluster, numbered 0.. in DT order */
	int nr_anc;		/* enclosing clusters' keys, innermost first */
	int anc[TOPO_MAX_DEPTH];
	int rail_key;		/* power-domains node offset, or -1: system rail */
	const char *compatible;
};

struct topology {
	int nr_cpus;
	int nr_clusters;
	struct topo_cpu cpu[TOPO_MAX_CPUS];
	int nr_levels[TOPO_MAX_CPUS];
	struct sched_domain sd[TOPO_MAX_CPUS][TOPO_MAX_LEVELS];	/* bottom-up */
	int nr_groups_used;
	struct sched_group groups[TOPO_MAX_DOMAINS];	/* shared by CPUs of equal spans */
	/*
	 * The CPU's innermost cluster when it spans more than the CPU and is
	 * the span of its bottom domain level (Linux's sd_llc: the CPUs a
	 * wake-up may look among for an idle one); empty when the CPU is alone
	 * in its cluster.
	 */
	cpumask_t llc[TOPO_MAX_CPUS];
	cpumask_t powerline[TOPO_MAX_CPUS];	/* CPUs sharing this CPU's power line, as the policy sees it */
	const struct pack_policy *policy;	/* the one it was built for */
	int pack_buddy[TOPO_MAX_CPUS];	/* -1: no packing */
	/*
	 * The buddy is so much smaller that a light task (< 25% here) may not
	 * fit it (Linux's fits_capacity, 25% headroom): buddy_select() checks
	 * each one. False on every shipped board (TC2: A15 -> A7 fits).
	 */
	bool pack_buddy_check_fit[TOPO_MAX_CPUS];
};

static inline const struct sched_group *sd_group(const struct topology *t, const struct sched_domain *sd, int i)
{
	return &t->groups[sd->first_group + i];
}

struct fdt;

/*
 * Fill the per-CPU description from the DT. Returns 0, or -1 with a
 * message naming the problem in @err (bad cpu-map phandle, zero capacity,
 * dangling power-domains, too many CPUs ...).
 */
int topology_parse_dt(const struct fdt *fdt, struct topology *topo, char *err, size_t errlen);
/* Domains, power lines and pack buddies (as @policy wants them) from the per-CPU description. */
void topology_build(struct topology *topo, const struct pack_policy *policy);
/* The seeds' buddy rule on topo->powerline[] (docs/interfaces.md): a CPU, or -1 when all CPUs share one line. */
int topology_pack_buddy(const struct topology *topo, int cpu);
/* topo->powerline[] from the DT's power-domains (each CPU's rail): a policy's default. */
void topology_powerlines_dt(struct topology *topo);
/* Domain level of @cpu whose span contains @other, or -1. */
int topology_common_level(const struct topology *topo, int cpu, int other);

/*
 * One line describing @cpu: cluster, capacity, rail, and each domain level
 * with its flags and groups. Returns the length like snprintf.
 */
int topology_describe_cpu(const struct topology *topo, int cpu, char *buf, size_t size);

/* "0-1,4" style list of @m; returns the length like snprintf. */
int cpumask_format(char *buf, size_t size, const cpumask_t *m);

/* The kernel's own topology, built at boot by sched_topology_init_dt(). */
extern struct topology sched_topo;

/*
 * At boot (kernel/sched/topology_init.c): sched_topo from the DT for the
 * policy named @pack (bootarg pack=; NULL or unknown: the default, said),
 * for the @nr_cpus CPUs the port found; panics on a DT it cannot use.
 */
void sched_topology_init_dt(const struct fdt *fdt, const char *pack, int nr_cpus);
/* "CPU<n> packing on CPU<m>" for each CPU. */
void sched_topology_report(void);
/* @cpu's innermost cluster. */
int sched_cpu_cluster(int cpu);

#endif
