/*
 * Frequency domains from the DT's operating-points-v2 tables (Linux's
 * binding, Documentation/devicetree/bindings/opp/opp-v2.yaml): each cpu
 * node names its table; CPUs naming one table share a clock, which the
 * table must state with opp-shared. See include/kernel/sched/cpufreq.h.
 * Pure: the host tests run it on their own DTs.
 */
#include <string.h>

#include "kernel/lib/fdt.h"
#include "kernel/lib/format.h"
#include "kernel/sched/cpufreq.h"

/* Read one table node into @d; -1 with @err naming the node and property. */
static int parse_table(const struct fdt *fdt, int table, struct freq_domain *d, char *err, size_t errlen)
{
	const char *tname = fdt_node_name(fdt, table);

	if (!fdt_is_compatible(fdt, table, "operating-points-v2"))
		return format_error(err, errlen, "cpufreq: %s: compatible is not \"operating-points-v2\"", tname);
	d->nr_opps = 0;
	for (int o = fdt_first_child(fdt, table); o >= 0; o = fdt_next_sibling(fdt, o)) {
		const char *oname = fdt_node_name(fdt, o);
		const void *p;
		uint64_t hz;
		uint32_t lat = 0;
		int len;

		if (!fdt_node_enabled(fdt, o))
			continue;
		p = fdt_getprop(fdt, o, "opp-hz", &len);
		if (!p || (len != 4 && len != 8))
			return format_error(err, errlen, "cpufreq: %s/%s: opp-hz missing or not one 32/64-bit value",
					    tname, oname);
		hz = fdt_read_cells(p, len / 4);
		if (hz < 1000 || hz / 1000 > UINT32_MAX)
			return format_error(err, errlen, "cpufreq: %s/%s: opp-hz %llu Hz is out of range", tname,
					    oname, (unsigned long long)hz);
		if (d->nr_opps == CPUFREQ_MAX_OPPS)
			return format_error(err, errlen, "cpufreq: %s: more than %d OPPs", tname, CPUFREQ_MAX_OPPS);
		if (d->nr_opps > 0 && hz / 1000 <= d->khz[d->nr_opps - 1])
			return format_error(err, errlen, "cpufreq: %s/%s: opp-hz not above the OPP before it (the table "
					    "must be sorted, lowest first)", tname, oname);
		d->khz[d->nr_opps] = (uint32_t)(hz / 1000);
		d->uv[d->nr_opps] = 0;
		if (fdt_has_prop(fdt, o, "opp-microvolt") && fdt_prop_cell(fdt, o, "opp-microvolt", 0, &d->uv[d->nr_opps]))
			return format_error(err, errlen, "cpufreq: %s/%s: opp-microvolt unreadable", tname, oname);
		if (fdt_has_prop(fdt, o, "clock-latency-ns") && fdt_prop_u32(fdt, o, "clock-latency-ns", &lat))
			return format_error(err, errlen, "cpufreq: %s/%s: clock-latency-ns must be one cell", tname, oname);
		if (lat > d->latency_ns)
			d->latency_ns = lat;
		d->nr_opps++;
	}
	if (d->nr_opps == 0)
		return format_error(err, errlen, "cpufreq: %s: no OPP in the table", tname);
	return 0;
}

int cpufreq_parse_dt(const struct fdt *fdt, const struct topology *topo, struct cpufreq_dt *out, char *err,
		     size_t errlen)
{
	int table_of_dom[CPUFREQ_MAX_DOMAINS];
	int with = 0;

	memset(out, 0, sizeof(*out));
	for (int cpu = 0; cpu < TOPO_MAX_CPUS; cpu++)
		out->cpu_domain[cpu] = -1;
	for (int cpu = 0, node = fdt_first_cpu_node(fdt); cpu < topo->nr_cpus && node >= 0;
	     cpu++, node = fdt_next_cpu_node(fdt, node)) {
		uint32_t ph;
		int table, d;

		if (!fdt_has_prop(fdt, node, "operating-points-v2"))
			continue;
		with++;
		if (fdt_prop_u32(fdt, node, "operating-points-v2", &ph))
			return format_error(err, errlen, "cpufreq: cpu%d: operating-points-v2 must be one phandle", cpu);
		table = fdt_node_by_phandle(fdt, ph);
		if (table < 0)
			return format_error(err, errlen, "cpufreq: cpu%d: operating-points-v2 names a missing node", cpu);
		for (d = 0; d < out->nr_domains; d++)
			if (table_of_dom[d] == table)
				break;
		if (d == out->nr_domains) {
			struct freq_domain *fd = &out->dom[d];

			if (d == CPUFREQ_MAX_DOMAINS)
				return format_error(err, errlen, "cpufreq: more than %d OPP tables", CPUFREQ_MAX_DOMAINS);
			if (parse_table(fdt, table, fd, err, errlen) < 0)
				return -1;
			table_of_dom[d] = table;
			fd->id = d;
			fd->first_cpu = cpu;
			fd->cluster = topo->cpu[cpu].cluster;
			fd->cur = fd->nr_opps - 1;
			out->nr_domains++;
		} else if (!fdt_has_prop(fdt, table, "opp-shared")) {
			return format_error(err, errlen, "cpufreq: %s: serves cpu%d and cpu%d but has no opp-shared",
					    fdt_node_name(fdt, table), out->dom[d].first_cpu, cpu);
		}
		cpumask_set(&out->dom[d].cpus, cpu);
		out->cpu_domain[cpu] = (int16_t)d;
	}
	if (with > 0 && with != topo->nr_cpus)
		return format_error(err, errlen, "cpufreq: %d of %d CPUs have operating-points-v2", with, topo->nr_cpus);
	/* A cluster is one clock on every board we know: CPUs of a cluster in different domains is a DT error. */
	for (int a = 0; a < topo->nr_cpus && with; a++)
		for (int b = a + 1; b < topo->nr_cpus; b++)
			if (topo->cpu[a].cluster == topo->cpu[b].cluster && out->cpu_domain[a] != out->cpu_domain[b])
				return format_error(err, errlen,
						    "cpufreq: cpu%d and cpu%d share a cluster but name different "
						    "operating-points-v2 tables", a, b);
	return 0;
}
