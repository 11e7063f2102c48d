/* Topology, scheduling domains and pack buddies; see include/kernel/sched/topology.h. */
#include "kernel/sched/topology.h"

#include <string.h>

#include "kernel/lib/fdt.h"
#include "kernel/lib/format.h"
#include "kernel/pack/pack.h"
#include "kernel/lib/panic.h"

struct topology sched_topo;

static bool name_is(const char *name, const char *prefix)
{
	return strncmp(name, prefix, strlen(prefix)) == 0;
}

struct walk {
	const struct fdt *fdt;
	struct topology *topo;
	int cpu_node[TOPO_MAX_CPUS];
	bool seen[TOPO_MAX_CPUS];
	int stack[TOPO_MAX_DEPTH];	/* enclosing cluster nodes, outermost first */
	int depth;
	int cluster_of_node[TOPO_MAX_CPUS * 2];	/* innermost cluster nodes met so far */
	int nr_seen_clusters;
	char *err;
	size_t errlen;
};

static int cluster_index(struct walk *w, int node)
{
	for (int i = 0; i < w->nr_seen_clusters; i++)
		if (w->cluster_of_node[i] == node)
			return i;
	w->cluster_of_node[w->nr_seen_clusters] = node;
	return w->nr_seen_clusters++;
}

static int map_leaf(struct walk *w, int node, uint32_t phandle)
{
	int target = fdt_node_by_phandle(w->fdt, phandle), cpu = -1;
	struct topo_cpu *c;

	for (int i = 0; i < w->topo->nr_cpus; i++)
		if (w->cpu_node[i] == target)
			cpu = i;
	if (cpu < 0)
		return format_error(w->err, w->errlen, "cpu-map/.../%s: cpu phandle 0x%x is not an enabled cpu node",
			    fdt_node_name(w->fdt, node), (unsigned)phandle);
	if (w->seen[cpu])
		return format_error(w->err, w->errlen, "cpu-map: cpu%d appears twice (at %s)", cpu,
			    fdt_node_name(w->fdt, node));
	if (w->depth == 0)
		return format_error(w->err, w->errlen, "cpu-map: %s is in no cluster", fdt_node_name(w->fdt, node));
	w->seen[cpu] = true;
	c = &w->topo->cpu[cpu];
	c->nr_anc = w->depth;
	for (int i = 0; i < w->depth; i++)
		c->anc[i] = w->stack[w->depth - 1 - i];
	c->cluster = cluster_index(w, w->stack[w->depth - 1]);
	return 0;
}

static int walk_map(struct walk *w, int node)
{
	for (int n = fdt_first_child(w->fdt, node); n >= 0; n = fdt_next_sibling(w->fdt, n)) {
		const char *name = fdt_node_name(w->fdt, n);
		uint32_t ph;
		int rc;

		if (fdt_prop_u32(w->fdt, n, "cpu", &ph) == 0) {
			if (map_leaf(w, n, ph) < 0)
				return -1;
			continue;
		}
		if (fdt_has_prop(w->fdt, n, "cpu"))
			return format_error(w->err, w->errlen, "cpu-map: %s has a malformed cpu property", name);
		if (name_is(name, "cluster")) {
			if (w->depth == TOPO_MAX_DEPTH)
				return format_error(w->err, w->errlen, "cpu-map: clusters nested deeper than %d (at %s)",
					    TOPO_MAX_DEPTH, name);
			w->stack[w->depth++] = n;
			rc = walk_map(w, n);
			w->depth--;
		} else {
			rc = walk_map(w, n);	/* core with threads */
		}
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int parse_cpu(const struct fdt *fdt, int cpus, int n, struct topo_cpu *c, char *err, size_t errlen)
{
	uint64_t reg, unused;
	uint32_t ph;
	int len;

	if (fdt_reg_under(fdt, cpus, n, 0, &reg, &unused) != 0)
		return format_error(err, errlen, "/cpus/%s has no valid reg (MPIDR)", fdt_node_name(fdt, n));
	c->hwid = (uint32_t)reg;
	c->compatible = fdt_prop_string(fdt, n, "compatible");
	if (!c->compatible)
		c->compatible = "unknown";
	c->capacity = CAPACITY_SCALE;
	if (fdt_getprop(fdt, n, "capacity-dmips-mhz", &len)) {
		if (fdt_prop_u32(fdt, n, "capacity-dmips-mhz", &c->capacity) != 0 || c->capacity == 0)
			return format_error(err, errlen, "/cpus/%s: capacity-dmips-mhz must be one non-zero cell",
				    fdt_node_name(fdt, n));
		if (c->capacity > CAPACITY_MAX)
			return format_error(err, errlen, "/cpus/%s: capacity-dmips-mhz %u is above %u",
				    fdt_node_name(fdt, n), (unsigned)c->capacity, CAPACITY_MAX);
	}
	c->rail_key = -1;
	if (fdt_getprop(fdt, n, "power-domains", &len)) {
		int pd;

		if (fdt_prop_cell(fdt, n, "power-domains", 0, &ph) != 0)
			return format_error(err, errlen, "/cpus/%s: malformed power-domains", fdt_node_name(fdt, n));
		pd = fdt_node_by_phandle(fdt, ph);
		if (pd < 0)
			return format_error(err, errlen, "/cpus/%s: power-domains phandle 0x%x names no node",
				    fdt_node_name(fdt, n), (unsigned)ph);
		c->rail_key = pd;
	}
	/* Without a cpu-map: MPIDR Aff2.Aff1 is the cluster, Aff2 the package. */
	c->nr_anc = 2;
	c->anc[0] = (int)((c->hwid >> 8) & 0xffff);
	c->anc[1] = (int)(0x1000000 | ((c->hwid >> 16) & 0xff));
	c->cluster = c->anc[0];
	return 0;
}

int topology_parse_dt(const struct fdt *fdt, struct topology *topo, char *err, size_t errlen)
{
	int cpus = fdt_path(fdt, "/cpus"), map;
	struct walk w;

	memset(topo, 0, sizeof(*topo));
	memset(&w, 0, sizeof(w));
	if (cpus < 0)
		return format_error(err, errlen, "no /cpus node");
	for (int n = fdt_first_cpu_node(fdt); n >= 0; n = fdt_next_cpu_node(fdt, n)) {
		if (topo->nr_cpus == TOPO_MAX_CPUS)
			return format_error(err, errlen, "more than %d cpu nodes", TOPO_MAX_CPUS);
		if (parse_cpu(fdt, cpus, n, &topo->cpu[topo->nr_cpus], err, errlen) < 0)
			return -1;
		w.cpu_node[topo->nr_cpus++] = n;
	}
	if (topo->nr_cpus == 0)
		return format_error(err, errlen, "/cpus has no enabled cpu node");

	map = fdt_subnode(fdt, cpus, "cpu-map");
	if (map < 0) {
		/* Renumber Aff1 values densely, in CPU order. */
		int keys[TOPO_MAX_CPUS], nr = 0;

		for (int i = 0; i < topo->nr_cpus; i++) {
			int k = 0;

			while (k < nr && keys[k] != topo->cpu[i].anc[0])
				k++;
			if (k == nr)
				keys[nr++] = topo->cpu[i].anc[0];
			topo->cpu[i].cluster = k;
		}
		topo->nr_clusters = nr;
		return 0;
	}
	w.fdt = fdt;
	w.topo = topo;
	w.err = err;
	w.errlen = errlen;
	if (walk_map(&w, map) < 0)
		return -1;
	for (int i = 0; i < topo->nr_cpus; i++)
		if (!w.seen[i])
			return format_error(err, errlen, "cpu-map does not mention cpu%d (/cpus/%s)", i,
				    fdt_node_name(fdt, w.cpu_node[i]));
	topo->nr_clusters = w.nr_seen_clusters;
	return 0;
}

/* ------------------------------------------------------------ domains */

static cpumask_t all_cpus(const struct topology *topo)
{
	cpumask_t m = { { 0 } };

	for (int c = 0; c < topo->nr_cpus; c++)
		cpumask_set(&m, c);
	return m;
}

static bool has_ancestor(const struct topo_cpu *c, int key)
{
	for (int i = 0; i < c->nr_anc; i++)
		if (c->anc[i] == key)
			return true;
	return false;
}

/*
 * Candidate span @k of @cpu: the CPUs inside its k-th enclosing cluster
 * (matched by identity, so uneven nesting is fine), or all CPUs once k
 * runs past its clusters.
 */
static cpumask_t candidate_span(const struct topology *topo, int cpu, int k)
{
	const struct topo_cpu *c = &topo->cpu[cpu];
	cpumask_t m = { { 0 } };

	if (k >= c->nr_anc)
		return all_cpus(topo);
	for (int d = 0; d < topo->nr_cpus; d++)
		if (has_ancestor(&topo->cpu[d], c->anc[k]))
			cpumask_set(&m, d);
	return m;
}

/* The spans of @cpu's domains, bottom-up, without degenerate levels. */
static int domain_spans(const struct topology *topo, int cpu, cpumask_t spans[TOPO_MAX_LEVELS],
			bool is_top[TOPO_MAX_LEVELS])
{
	cpumask_t prev = cpumask_of(cpu);
	int n = 0;

	for (int k = 0; k <= topo->cpu[cpu].nr_anc && n < TOPO_MAX_LEVELS; k++) {
		cpumask_t span = candidate_span(topo, cpu, k);

		if (cpumask_weight(&span) <= 1 || cpumask_equal(&span, &prev))
			continue;
		KASSERT(cpumask_subset(&prev, &span));	/* levels nest */
		spans[n] = span;
		is_top[n] = k == topo->cpu[cpu].nr_anc;
		prev = span;
		n++;
	}
	return n;
}

/* @cpu's largest domain span strictly inside @outer, or @cpu alone. */
static cpumask_t child_span(const struct topology *topo, int cpu, const cpumask_t *outer)
{
	cpumask_t spans[TOPO_MAX_LEVELS], best = cpumask_of(cpu);
	bool top[TOPO_MAX_LEVELS];
	int n = domain_spans(topo, cpu, spans, top);

	for (int l = 0; l < n; l++)
		if (cpumask_subset(&spans[l], outer) && !cpumask_equal(&spans[l], outer))
			best = spans[l];
	return best;
}

static void build_groups(struct topology *topo, struct sched_domain *sd)
{
	cpumask_t left = sd->span;

	int first;

	sd->first_group = topo->nr_groups_used;
	sd->nr_groups = 0;
	while ((first = cpumask_first(&left)) >= 0) {
		struct sched_group *grp;

		KASSERT(topo->nr_groups_used < TOPO_MAX_DOMAINS);
		grp = &topo->groups[topo->nr_groups_used++];
		grp->cpus = child_span(topo, first, &sd->span);
		grp->capacity = 0;
		grp->nr_cpus = 0;
		grp->first = cpumask_first(&grp->cpus);
		for_each_cpu(d, &grp->cpus) {
			grp->capacity += topo->cpu[d].capacity;
			grp->nr_cpus++;
		}
		cpumask_andnot(&left, &left, &grp->cpus);
		sd->nr_groups++;
	}
}

/* A domain of an earlier CPU with the same span: share its groups. */
static const struct sched_domain *find_same_span(const struct topology *topo, int cpu, const cpumask_t *span)
{
	int first = cpumask_first(span);

	if (first >= cpu)
		return NULL;
	for (int l = 0; l < topo->nr_levels[first]; l++)
		if (cpumask_equal(&topo->sd[first][l].span, span))
			return &topo->sd[first][l];
	return NULL;
}

static void build_domains(struct topology *topo, int cpu)
{
	cpumask_t spans[TOPO_MAX_LEVELS];
	bool top[TOPO_MAX_LEVELS];
	int n = domain_spans(topo, cpu, spans, top);

	for (int l = 0; l < n; l++) {
		struct sched_domain *sd = &topo->sd[cpu][l];
		const struct sched_domain *same = find_same_span(topo, cpu, &spans[l]);

		sd->span = spans[l];
		/* Cluster levels are MC (bottom) and CLS; the level spanning everything is DIE. */
		if (top[l] || (l > 0 && cpumask_weight(&spans[l]) == topo->nr_cpus))
			sd->name = "DIE";
		else
			sd->name = l == 0 ? "MC" : "CLS";
		sd->min_interval_ms = (uint32_t)cpumask_weight(&spans[l]);
		sd->flags = 0;
		if (same) {
			sd->first_group = same->first_group;
			sd->nr_groups = same->nr_groups;
		} else {
			build_groups(topo, sd);
		}
	}
	topo->nr_levels[cpu] = n;
}

void topology_powerlines_dt(struct topology *topo)
{
	for (int c = 0; c < topo->nr_cpus; c++) {
		memset(&topo->powerline[c], 0, sizeof(topo->powerline[c]));
		/* CPUs of one rail share its mask: copy the first one's. */
		for (int d = 0; d < c; d++)
			if (topo->cpu[d].rail_key == topo->cpu[c].rail_key) {
				topo->powerline[c] = topo->powerline[d];
				break;
			}
		if (cpumask_empty(&topo->powerline[c]))
			for (int d = c; d < topo->nr_cpus; d++)
				if (topo->cpu[d].rail_key == topo->cpu[c].rail_key)
					cpumask_set(&topo->powerline[c], d);
	}
}

/* Group of @sd with the lowest capacity per CPU; ties go to the lowest CPU. */
static const struct sched_group *lowest_capacity_group(const struct topology *topo, const struct sched_domain *sd)
{
	const struct sched_group *best = sd_group(topo, sd, 0);

	for (int i = 1; i < sd->nr_groups; i++) {
		const struct sched_group *g = sd_group(topo, sd, i);
		uint64_t g_per = (uint64_t)g->capacity * best->nr_cpus;
		uint64_t best_per = (uint64_t)best->capacity * g->nr_cpus;

		if (g_per < best_per ||
		    (g_per == best_per && cpumask_first(&g->cpus) < cpumask_first(&best->cpus)))
			best = g;
	}
	return best;
}

int topology_pack_buddy(const struct topology *topo, int cpu)
{
	const cpumask_t *line = &topo->powerline[cpu];
	cpumask_t all = all_cpus(topo);
	int line_weight = cpumask_weight(line);

	if (cpumask_equal(line, &all))
		return -1;
	for (int l = 0; l < topo->nr_levels[cpu]; l++) {
		const struct sched_domain *sd = &topo->sd[cpu][l];
		int target;

		if (cpumask_weight(&sd->span) <= line_weight)
			continue;
		target = cpumask_first(&lowest_capacity_group(topo, sd)->cpus);
		if (!cpumask_test(line, target))
			return target;
	}
	return cpu;
}

/*
 * Each CPU's llc: its bottom level's span if that is exactly its innermost
 * cluster (the levels are clusters, so the bottom one holds that cluster:
 * equal weights mean equal spans), else empty (a cluster of one CPU).
 */
static void set_llc_spans(struct topology *topo)
{
	static int cluster_cpus[TOPO_MAX_CPUS];	/* boot and host tools: one builder at a time */

	memset(cluster_cpus, 0, sizeof(cluster_cpus));
	for (int c = 0; c < topo->nr_cpus; c++) {
		KASSERT(topo->cpu[c].cluster >= 0 && topo->cpu[c].cluster < TOPO_MAX_CPUS);
		cluster_cpus[topo->cpu[c].cluster]++;
	}
	for (int c = 0; c < topo->nr_cpus; c++) {
		int n = cluster_cpus[topo->cpu[c].cluster];

		if (n > 1 && topo->nr_levels[c] > 0 && cpumask_weight(&topo->sd[c][0].span) == n)
			topo->llc[c] = topo->sd[c][0].span;
		else
			memset(&topo->llc[c], 0, sizeof(topo->llc[c]));
	}
}

void topology_build(struct topology *topo, const struct pack_policy *policy)
{
	KASSERT(topo->nr_cpus > 0 && topo->nr_cpus <= TOPO_MAX_CPUS);
	KASSERT(policy != NULL);
	topo->policy = policy;
	topo->nr_groups_used = 0;
	for (int c = 0; c < topo->nr_cpus; c++)
		build_domains(topo, c);
	set_llc_spans(topo);
	if (policy->powerlines)
		policy->powerlines(topo);
	else
		topology_powerlines_dt(topo);
	for (int c = 0; c < topo->nr_cpus; c++)
		for (int l = 0; l < topo->nr_levels[c]; l++) {
			struct sched_domain *sd = &topo->sd[c][l];

			sd->flags = cpumask_subset(&sd->span, &topo->powerline[c]) ? SD_SHARE_POWERLINE : 0;
		}
	for (int c = 0; c < topo->nr_cpus; c++) {
		int b = policy->buddy ? policy->buddy(topo, c) : -1;

		KASSERT(b >= -1 && b < topo->nr_cpus);
		topo->pack_buddy[c] = b;
		/* 25% of c, with 25% headroom, is 5/16 of c's capacity: more than the buddy's? */
		topo->pack_buddy_check_fit[c] = b >= 0 && (uint64_t)topo->cpu[b].capacity * 16 <
							  (uint64_t)topo->cpu[c].capacity * 5;
	}
}

int topology_common_level(const struct topology *topo, int cpu, int other)
{
	for (int l = 0; l < topo->nr_levels[cpu]; l++)
		if (cpumask_test(&topo->sd[cpu][l].span, other))
			return l;
	return -1;
}

int cpumask_format(char *buf, size_t size, const cpumask_t *m)
{
	size_t n = 0;

	if (size)
		buf[0] = '\0';
	if (cpumask_empty(m))
		return ksnprintf(buf, size, "none");
	for (int cpu = cpumask_first(m); cpu >= 0;) {
		int end = cpu;

		while (end + 1 < TOPO_MAX_CPUS && cpumask_test(m, end + 1))
			end++;
		n += (size_t)ksnprintf(buf + (n < size ? n : size), n < size ? size - n : 0,
				       end == cpu ? "%s%d" : "%s%d-%d", n ? "," : "", cpu, end);
		cpu = cpumask_next(m, end);
	}
	return (int)n;
}

int topology_describe_cpu(const struct topology *t, int cpu, char *buf, size_t size)
{
	char mask[256];
	size_t n = 0;

#define OUT(...) (n += (size_t)ksnprintf(buf + (n < size ? n : size), n < size ? size - n : 0, __VA_ARGS__))
	cpumask_format(mask, sizeof(mask), &t->powerline[cpu]);
	OUT("cpu%d mpidr=0x%x cluster=%d capacity=%u rail=%s %s:", cpu, (unsigned)t->cpu[cpu].hwid,
	    t->cpu[cpu].cluster, (unsigned)t->cpu[cpu].capacity, mask, t->cpu[cpu].compatible);
	if (t->nr_levels[cpu] == 0)
		OUT(" no domains");
	for (int l = 0; l < t->nr_levels[cpu]; l++) {
		const struct sched_domain *sd = &t->sd[cpu][l];

		cpumask_format(mask, sizeof(mask), &sd->span);
		OUT(" %s[%s%s:", sd->name, mask, (sd->flags & SD_SHARE_POWERLINE) ? " SHARE_POWERLINE" : "");
		for (int g = 0; g < sd->nr_groups; g++) {
			cpumask_format(mask, sizeof(mask), &sd_group(t, sd, g)->cpus);
			OUT(" {%s}/%u", mask, (unsigned)sd_group(t, sd, g)->capacity);
		}
		OUT("]");
	}
#undef OUT
	return (int)n;
}
