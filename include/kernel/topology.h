/*
 * CPU topology, scheduling domains and pack buddies, from the device tree.
 *
 * CPUs are numbered in the order of the enabled cpu nodes in /cpus (the
 * same rule as the SMP code). Clusters come from /cpus/cpu-map (nesting
 * allowed) or, without one, from MPIDR Aff1. Each CPU gets a stack of
 * scheduling domains, bottom-up: the innermost cluster (MC), enclosing
 * clusters (CLS), then all CPUs (DIE); levels that span one CPU or the same
 * CPUs as the level below are dropped. The groups of a level are the spans
 * of the level below (single CPUs at the bottom).
 *
 * Power rails: CPUs whose "power-domains" name the same node share a power
 * line; CPUs without one share the system rail. The pack buddy rule is the
 * one in notes/spec.md, implemented by topology_pack_buddy().
 *
 * Everything here is plain computation on a struct topology: the kernel
 * builds one at boot, host tools and tests build their own.
 */
#ifndef KERNEL_TOPOLOGY_H
#define KERNEL_TOPOLOGY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TOPO_MAX_CPUS 32
#define TOPO_MAX_LEVELS 4
#define TOPO_MAX_DEPTH 3	/* cpu-map cluster nesting we keep */
#define CAPACITY_SCALE 1024u

typedef uint32_t cpumask_t;

static inline bool cpumask_test(cpumask_t m, int cpu) { return (m >> cpu) & 1u; }
static inline int cpumask_weight(cpumask_t m) { return __builtin_popcount(m); }
static inline int cpumask_first(cpumask_t m) { return m ? __builtin_ctz(m) : -1; }
static inline cpumask_t cpumask_of(int cpu) { return 1u << cpu; }

enum pack_mode {
	PACK_OFF,	/* no buddy anywhere (the seeds' "default") */
	PACK_RAILS,	/* rails from the DT (default) */
	PACK_ALL,	/* every CPU its own rail */
};

struct sched_group {
	cpumask_t cpus;
	uint32_t capacity;	/* sum of its CPUs' capacities */
};

/* sched_domain flags */
#define SD_SHARE_POWERLINE 1u	/* all CPUs of the span are on one power line */

struct sched_domain {
	const char *name;	/* "MC", "CLS", "DIE" */
	unsigned int flags;
	cpumask_t span;
	int nr_groups;
	struct sched_group groups[TOPO_MAX_CPUS];
	uint32_t min_interval_ms;	/* periodic balance interval when idle */
};

struct topo_cpu {
	uint32_t hwid;		/* MPIDR affinity (cpu node reg) */
	uint32_t capacity;	/* capacity-dmips-mhz, 1024 when absent */
	int cluster;		/* innermost cluster, numbered 0.. in DT order */
	int nr_anc;		/* cluster keys, innermost first */
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
	cpumask_t rail[TOPO_MAX_CPUS];	/* CPUs sharing this CPU's power line */
	enum pack_mode pack;
	int pack_buddy[TOPO_MAX_CPUS];	/* -1: no packing */
};

struct fdt;

/*
 * Fill the per-CPU description from the DT. Returns 0, or -1 with a
 * message naming the problem in @err (bad cpu-map phandle, zero capacity,
 * dangling power-domains, too many CPUs ...).
 */
int topology_parse_dt(const struct fdt *fdt, struct topology *topo, char *err, size_t errlen);
/* Domains, rails and pack buddies from the per-CPU description. */
void topology_build(struct topology *topo, enum pack_mode mode);
int topology_pack_buddy(const struct topology *topo, int cpu);
/* The pack mode named @s ("off", "rails", "all"), or -1. */
int pack_mode_parse(const char *s);
const char *pack_mode_name(enum pack_mode mode);
/* Domain level of @cpu whose span contains @other, or -1. */
int topology_common_level(const struct topology *topo, int cpu, int other);

/*
 * One line describing @cpu: cluster, capacity, rail, and each domain level
 * with its flags and groups. Returns the length like snprintf.
 */
int topology_describe_cpu(const struct topology *topo, int cpu, char *buf, size_t size);

/* "0-1,4" style list of @m; returns the length like snprintf. */
int cpumask_format(char *buf, size_t size, cpumask_t m);

/* The kernel's own topology (boot/topology.c sets it). */
extern struct topology sched_topo;

#endif
