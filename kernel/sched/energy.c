/* Energy model and accounting; see include/kernel/sched/energy.h. */
#include "kernel/sched/energy.h"

#include <string.h>

#include "kernel/lib/fdt.h"
#include "kernel/lib/format.h"
#include "kernel/lib/panic.h"
#include "kernel/lib/printk.h"
#include "kernel/time/time.h"
#include "kernel/time/timer.h"

static int parse_cost(const struct fdt *fdt, int node, int want_idle, struct energy_cost *c, char *err,
		      size_t errlen)
{
	const char *name = fdt_node_name(fdt, node);
	int len;

	memset(c, 0, sizeof(*c));
	if (!fdt_getprop(fdt, node, "busy-cost-data", &len) || len == 0 || len % 8)
		return format_error(err, errlen, "energy: %s: busy-cost-data must be <capacity power> pairs", name);
	if (len / 8 > CPUFREQ_MAX_OPPS)
		return format_error(err, errlen, "energy: %s: busy-cost-data has more than %d pairs", name,
				    CPUFREQ_MAX_OPPS);
	c->nr_opps = len / 8;
	for (int i = 0; i < c->nr_opps; i++) {
		fdt_prop_cell(fdt, node, "busy-cost-data", 2 * i, &c->cap_opp[i]);
		fdt_prop_cell(fdt, node, "busy-cost-data", 2 * i + 1, &c->busy_opp[i]);
		if (i > 0 && c->cap_opp[i] <= c->cap_opp[i - 1])
			return format_error(err, errlen, "energy: %s: busy-cost-data capacity not rising (pair %d)",
					    name, i);
	}
	c->busy = c->busy_opp[c->nr_opps - 1];
	if (!fdt_getprop(fdt, node, "idle-cost-data", &len) || len % 4 || len / 4 != want_idle)
		return format_error(err, errlen, "energy: %s: idle-cost-data needs %d entries", name, want_idle);
	c->nr_idle = want_idle;
	for (int i = 0; i < want_idle; i++)
		fdt_prop_cell(fdt, node, "idle-cost-data", i, &c->idle[i]);
	return 0;
}

/* energy.h's why_flat: does the model give energy-aware placement a choice on @topo? */
static const char *why_flat(const struct energy_model *m, const struct topology *topo)
{
	if (!m->present)
		return "no energy model in the DT";
	if (topo->nr_clusters < 2)
		return "one cluster only";
	for (int c = 1; c < topo->nr_cpus; c++)
		if (topo->cpu[c].capacity != topo->cpu[0].capacity || m->core[c].busy != m->core[0].busy)
			return NULL;
	return "all CPUs equal (capacity and busy power)";
}

static int parse_model(const struct fdt *fdt, const struct topology *topo, const struct cpu_idle *ci, int nr_rails,
		       struct energy_model *m, char *err, size_t errlen);

int energy_model_parse_dt(const struct fdt *fdt, const struct topology *topo, const struct cpu_idle *ci,
			  int nr_rails, struct energy_model *m, char *err, size_t errlen)
{
	int rc = parse_model(fdt, topo, ci, nr_rails, m, err, errlen);

	m->why_flat = why_flat(m, topo);
	return rc;
}

static int parse_model(const struct fdt *fdt, const struct topology *topo, const struct cpu_idle *ci, int nr_rails,
		       struct energy_model *m, char *err, size_t errlen)
{
	bool rail_done[IDLE_MAX_RAILS] = { false };
	int found = 0;

	memset(m, 0, sizeof(*m));
	m->nr_cpus = topo->nr_cpus;
	m->nr_rails = nr_rails;
	for (int cpu = 0, node = fdt_first_cpu_node(fdt); cpu < topo->nr_cpus;
	     cpu++, node = fdt_next_cpu_node(fdt, node)) {
		int len, r = ci[cpu].rail;
		uint32_t core_ph, rail_ph;
		int core, rail_node;
		/* Rail idle costs: all-idle-on, then off if the rail has domain states. */
		int rail_idle = ci[cpu].states[ci[cpu].nr_states - 1].domain ? 2 : 1;
		int core_idle = 0;

		if (node < 0 || !fdt_getprop(fdt, node, "sched-energy-costs", &len))
			continue;
		if (len != 8)
			return format_error(err, errlen, "energy: cpu%d: sched-energy-costs must be <&core &cluster>", cpu);
		found++;
		fdt_prop_cell(fdt, node, "sched-energy-costs", 0, &core_ph);
		fdt_prop_cell(fdt, node, "sched-energy-costs", 1, &rail_ph);
		core = fdt_node_by_phandle(fdt, core_ph);
		rail_node = fdt_node_by_phandle(fdt, rail_ph);
		if (core < 0 || rail_node < 0)
			return format_error(err, errlen, "energy: cpu%d: sched-energy-costs names a missing node", cpu);
		for (int s = 0; s < ci[cpu].nr_states; s++)
			if (!ci[cpu].states[s].domain)
				core_idle++;
		if (parse_cost(fdt, core, core_idle, &m->core[cpu], err, errlen) < 0)
			return -1;
		/* Domain states switch the core off with the rail: it draws nothing of its own. */
		for (int s = core_idle; s < ci[cpu].nr_states; s++)
			m->core[cpu].idle[s] = 0;
		m->core[cpu].nr_idle = ci[cpu].nr_states;
		if (!rail_done[r]) {
			if (parse_cost(fdt, rail_node, rail_idle, &m->rail[r], err, errlen) < 0)
				return -1;
			rail_done[r] = true;
		}
	}
	if (found == 0)
		return 1;
	if (found != topo->nr_cpus)
		return format_error(err, errlen, "energy: %d of %d CPUs have sched-energy-costs", found, topo->nr_cpus);
	m->present = true;
	return 0;
}

int energy_model_bind_opps(struct energy_model *m, const struct cpufreq_dt *fd, const struct cpu_idle *ci,
			   const struct rail *rails, char *err, size_t errlen)
{
	m->nr_domains = 0;
	for (int cpu = 0; cpu < TOPO_MAX_CPUS; cpu++)
		m->cpu_domain[cpu] = -1;
	if (!m->present || fd->nr_domains == 0)
		return 0;
	for (int d = 0; d < fd->nr_domains; d++) {
		const struct freq_domain *dom = &fd->dom[d];
		int r = ci[dom->first_cpu].rail;

		m->domain_rail[d] = -1;
		if (cpumask_equal(&rails[r].cpus, &dom->cpus))
			m->domain_rail[d] = (int16_t)r;
	}
	for (int cpu = 0; cpu < m->nr_cpus; cpu++) {
		int d = fd->cpu_domain[cpu];
		const struct energy_cost *rc = &m->rail[ci[cpu].rail];

		m->cpu_domain[cpu] = (int16_t)d;
		if (d < 0)
			continue;
		if (memcmp(m->core[cpu].busy_opp, m->core[fd->dom[d].first_cpu].busy_opp, sizeof(m->core[cpu].busy_opp)) !=
		    0)
			return format_error(err, errlen, "energy: cpu%d and cpu%d share a clock but not core busy-cost-data",
					    fd->dom[d].first_cpu, cpu);
		if (m->core[cpu].nr_opps != 1 && m->core[cpu].nr_opps != fd->dom[d].nr_opps)
			return format_error(err, errlen,
					    "energy: cpu%d: core busy-cost-data has %d pairs for %d OPPs (one per OPP, "
					    "or one)", cpu, m->core[cpu].nr_opps, fd->dom[d].nr_opps);
		if (rc->nr_opps != 1 && (m->domain_rail[d] < 0 || rc->nr_opps != fd->dom[d].nr_opps))
			return format_error(err, errlen,
					    "energy: cpu%d: cluster busy-cost-data has %d pairs; per-OPP costs need one "
					    "pair per OPP and a rail that is the frequency domain", cpu, rc->nr_opps);
	}
	m->nr_domains = fd->nr_domains;
	return 0;
}

/* power x ns -> power x ms, rounded down (exactly: whole ms, then the remainder). */
static uint64_t pj(uint64_t power, uint64_t ns)
{
	return power * (ns / 1000000) + power * (ns % 1000000) / 1000000;
}

/* @total x @part / @whole (@part <= @whole) without overflow: both times cut to 32 bits first. */
static uint64_t share(uint64_t total, uint64_t part, uint64_t whole)
{
	while (whole >> 32) {
		whole >>= 1;
		part >>= 1;
	}
	if (!whole)
		return 0;
	return total / whole * part + total % whole * part / whole;
}

/* The domain whose CPUs are exactly rail @r's, or -1 (then the rail is charged at its top OPP's power). */
static int rail_domain(const struct energy_model *m, int nr_dom, int r)
{
	for (int d = 0; d < nr_dom; d++)
		if (m->domain_rail[d] == r)
			return d;
	return -1;
}

void energy_compute(const struct energy_model *m, const struct energy_snapshot *from,
		    const struct energy_snapshot *to, const struct rail *rails, struct energy_report *out)
{
	/* DVFS: each domain's core busy energy and its CPUs' busy time, to share it out. */
	uint64_t dom_core[CPUFREQ_MAX_DOMAINS] = { 0 }, dom_busy[CPUFREQ_MAX_DOMAINS] = { 0 };
	int nr_dom = m->nr_domains && from->nr_domains == m->nr_domains && to->nr_domains == m->nr_domains
			     ? m->nr_domains : 0;

	memset(out, 0, sizeof(*out));
	out->window_ns = ns_delta(from->t_ns, to->t_ns);
	for (int cpu = 0; cpu < m->nr_cpus && nr_dom; cpu++) {
		int d = m->cpu_domain[cpu];

		if (d >= 0)
			dom_busy[d] += ns_delta(from->cpu_busy_ns[cpu], to->cpu_busy_ns[cpu]);
	}
	for (int d = 0; d < nr_dom; d++)
		dom_core[d] = ns_delta(from->dom_core_pns[d], to->dom_core_pns[d]) / 1000000;
	for (int cpu = 0; cpu < m->nr_cpus; cpu++) {
		const struct energy_cost *c = &m->core[cpu];
		uint64_t busy_ns = ns_delta(from->cpu_busy_ns[cpu], to->cpu_busy_ns[cpu]);
		int d = nr_dom && m->cpu_domain[cpu] >= 0 && m->domain_rail[m->cpu_domain[cpu]] >= 0 ? m->cpu_domain[cpu]
												  : -1;
		uint64_t e = d < 0 ? pj(c->busy, busy_ns)
				   : share(dom_core[d], busy_ns, dom_busy[d]);

		for (int s = 0; s < c->nr_idle; s++)
			e += pj(c->idle[s], ns_delta(from->cpu_state_ns[cpu][s], to->cpu_state_ns[cpu][s]));
		out->cpu[cpu] = e;
	}
	for (int r = 0; r < m->nr_rails; r++) {
		const struct energy_cost *c = &m->rail[r];
		int d = rail_domain(m, nr_dom, r);
		uint64_t e;

		if (d < 0)
			e = pj(c->busy, ns_delta(from->rail_ns[r][RAIL_BUSY], to->rail_ns[r][RAIL_BUSY]));
		else
			e = ns_delta(from->dom_rail_pns[d], to->dom_rail_pns[d]) / 1000000;

		e += pj(c->idle[0], ns_delta(from->rail_ns[r][RAIL_IDLE], to->rail_ns[r][RAIL_IDLE]));
		if (c->nr_idle > 1)
			e += pj(c->idle[c->nr_idle - 1], ns_delta(from->rail_ns[r][RAIL_OFF], to->rail_ns[r][RAIL_OFF]));
		out->rail[r] = e;
		out->cluster[r] = e;
		for (int cpu = 0; cpu < m->nr_cpus; cpu++)
			if (cpumask_test(&rails[r].cpus, cpu))
				out->cluster[r] += out->cpu[cpu];
		out->total += out->cluster[r];
	}
}
