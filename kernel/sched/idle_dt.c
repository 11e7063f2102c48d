/* Idle states and rails from the DT; see include/kernel/sched/idle.h. */
#include <string.h>

#include "kernel/lib/fdt.h"
#include "kernel/lib/format.h"
#include "kernel/sched/idle.h"
#include "kernel/sched/topology.h"

static int parse_state(const struct fdt *fdt, int node, bool domain, struct idle_state *st, char *err,
		       size_t errlen)
{
	static const char *const props[3] = { "entry-latency-us", "exit-latency-us", "min-residency-us" };
	uint32_t us[3];
	const char *name = fdt_node_name(fdt, node);

	if (!fdt_is_compatible(fdt, node, "arm,idle-state"))
		return format_error(err, errlen, "idle state %s is not compatible with arm,idle-state", name);
	for (int i = 0; i < 3; i++)
		if (fdt_prop_u32(fdt, node, props[i], &us[i]) != 0)
			return format_error(err, errlen, "idle state %s: missing or malformed %s", name, props[i]);
	memset(st, 0, sizeof(*st));
	ksnprintf(st->name, sizeof(st->name), "%s", name);
	st->entry_ns = (uint64_t)us[0] * 1000;
	st->exit_ns = (uint64_t)us[1] * 1000;
	st->min_residency_ns = (uint64_t)us[2] * 1000;
	st->domain = domain;
	st->timer_stop = fdt_has_prop(fdt, node, "local-timer-stop");
	return 0;
}

/* Append the states listed by phandle in @prop of @node. */
static int add_states(const struct fdt *fdt, int node, const char *prop, bool domain, struct cpu_idle *ci,
		      char *err, size_t errlen)
{
	int len;
	const void *p = fdt_getprop(fdt, node, prop, &len);

	if (!p)
		return 0;
	if (len % 4)
		return format_error(err, errlen, "%s: %s is not a list of phandles", fdt_node_name(fdt, node), prop);
	for (int i = 0; i < len / 4; i++) {
		uint32_t ph;
		int st;

		fdt_prop_cell(fdt, node, prop, i, &ph);
		st = fdt_node_by_phandle(fdt, ph);
		if (st < 0)
			return format_error(err, errlen, "%s: %s entry %d (phandle 0x%x) names no node",
				    fdt_node_name(fdt, node), prop, i, (unsigned)ph);
		if (ci->nr_states == IDLE_MAX_STATES)
			return format_error(err, errlen, "%s: more than %d idle states", fdt_node_name(fdt, node),
				    IDLE_MAX_STATES - 1);
		if (parse_state(fdt, st, domain, &ci->states[ci->nr_states], err, errlen) < 0)
			return -1;
		if (ci->nr_states > 0 && ci->states[ci->nr_states].min_residency_ns <
						 ci->states[ci->nr_states - 1].min_residency_ns)
			return format_error(err, errlen, "%s: idle state %s is listed after a deeper one",
				    fdt_node_name(fdt, node), ci->states[ci->nr_states].name);
		ci->nr_states++;
	}
	return 0;
}

int idle_parse_dt(const struct fdt *fdt, const struct topology *topo, struct cpu_idle *ci, struct rail *rails,
		  uint64_t now, char *err, size_t errlen)
{
	int rail_key[IDLE_MAX_RAILS], nr_rails = 0;

	for (int cpu = 0, node = fdt_first_cpu_node(fdt); cpu < topo->nr_cpus;
	     cpu++, node = fdt_next_cpu_node(fdt, node)) {
		struct cpu_idle *c = &ci[cpu];
		int key = topo->cpu[cpu].rail_key, r;

		memset(c, 0, sizeof(*c));
		idle_gov_init(&c->gov);
		c->unreflected_ns = UINT64_MAX;
		c->cur_state = -1;
		c->since_ns = now;
		c->nr_states = 1;
		ksnprintf(c->states[0].name, sizeof(c->states[0].name), "wfi");
		if (node < 0)
			return format_error(err, errlen, "idle: cpu%d has no cpu node", cpu);
		if (add_states(fdt, node, "cpu-idle-states", false, c, err, errlen) < 0)
			return -1;
		if (key >= 0 && add_states(fdt, key, "domain-idle-states", true, c, err, errlen) < 0)
			return -1;
		for (r = 0; r < nr_rails && rail_key[r] != key; r++)
			;
		if (r == nr_rails) {
			if (nr_rails == IDLE_MAX_RAILS)
				return format_error(err, errlen, "idle: more than %d power rails", IDLE_MAX_RAILS);
			rail_key[nr_rails] = key;
			const cpumask_t none = { { 0 } };

			rail_init(&rails[nr_rails], &none, topo->cpu[cpu].cluster, now);
			rails[nr_rails].node = key;
			nr_rails++;
		}
		rail_add_cpu(&rails[r], cpu);
		c->rail = r;
	}
	/* Every CPU of a rail must agree on whether the rail can go off. */
	for (int cpu = 0; cpu < topo->nr_cpus; cpu++)
		for (int other = 0; other < topo->nr_cpus; other++) {
			bool a = ci[cpu].states[ci[cpu].nr_states - 1].domain;
			bool b = ci[other].states[ci[other].nr_states - 1].domain;

			if (ci[cpu].rail == ci[other].rail && a != b)
				return format_error(err, errlen, "idle: cpu%d and cpu%d share a rail but not its idle states",
					    cpu, other);
		}
	return nr_rails;
}
