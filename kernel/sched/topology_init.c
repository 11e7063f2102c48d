/*
 * The kernel's own topology at boot: build sched_topo (kernel/sched/topology.c)
 * from the DT for the placement policy named by bootarg "pack="
 * (include/kernel/pack/pack.h), check it agrees with the port's CPU count, and
 * report the pack buddies.
 */
#include "kernel/lib/cpumask.h"
#include "kernel/lib/fdt.h"
#include "kernel/pack/pack.h"
#include "kernel/lib/panic.h"
#include "kernel/lib/printk.h"
#include "kernel/sched/sched_internal.h"
#include "kernel/sched/topology.h"

void sched_topology_init_dt(const struct fdt *fdt, const char *mode_arg, int nr_cpus)
{
	const struct pack_policy *policy = pack_policy_from_arg(mode_arg, "bootargs");
	char err[128];

	if (topology_parse_dt(fdt, &sched_topo, err, sizeof(err)) != 0)
		panic("dtb: topology: %s", err);
	if (sched_topo.nr_cpus != nr_cpus)
		panic("topology: %d CPUs in the topology, %d known to SMP", sched_topo.nr_cpus,
		      nr_cpus);
	topology_build(&sched_topo, policy);
	balance_set_policy_tick(policy);
}

void sched_topology_report(void)
{
	int n = sched_topo.nr_cpus;

	/*
	 * A policy that cannot do its job here says so once (pack=energy: it
	 * places by the buddy rule), and that line is the one reason given.
	 */
	const char *why = sched_topo.policy->why_not ? sched_topo.policy->why_not() : NULL;

	if (why)
		kprintf("pack: %s: %s; placing by the buddy rule\n", sched_topo.policy->name, why);
	/* The spec's rule gives no buddy then: say why once, rather than leave n lines of -1 to decode. */
	else if (n > 1 && sched_topo.policy->buddy && !sched_topo.policy->powerlines &&
		 cpumask_weight(&sched_topo.powerline[0]) == n)
		kprintf("pack: %s: all %d CPUs share one power rail (%s), so nothing is packed; pack=all gives each CPU its own\n",
			sched_topo.policy->name, n,
			sched_topo.cpu[0].rail_key < 0 ? "no cpu node has power-domains" : "one power-domains node for all");
	for (int cpu = 0; cpu < sched_topo.nr_cpus; cpu++)
		kprintf("CPU%d packing on CPU%d\n", cpu, sched_topo.pack_buddy[cpu]);
}

int sched_cpu_cluster(int cpu)
{
	return sched_topo.cpu[cpu].cluster;
}
