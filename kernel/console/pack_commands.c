/*
 * Console commands for the topology and packing:
 *   topo            domain levels, flags, groups, capacities, rails, buddies
 *   pack            the placement policy and its per-CPU wake-up outcome counters
 *   pack list       the policies of the table (include/kernel/pack/pack.h), one a line
 *   pack <mode>     switch to that policy while tasks run; the boot log's
 *                   "CPU<n> packing on CPU<m>" lines again if the buddies changed
 */
#include <string.h>

#include "kernel/lib/format.h"
#include "kernel/pack/pack.h"
#include "kernel/lib/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/console/shell.h"
#include "kernel/sched/topology.h"

static void print_buddies(void)
{
	for (int cpu = 0; cpu < sched_topo.nr_cpus; cpu++)
		kprintf("CPU%d packing on CPU%d\n", cpu, sched_topo.pack_buddy[cpu]);
}

static int cmd_topo(int argc, char **argv)
{
	(void)argv;
	if (argc != 1) {
		kprintf("error: topo takes no arguments\n");
		return 1;
	}
	kprintf("topo: %d CPUs, %d clusters, pack=%s\n", sched_topo.nr_cpus, sched_topo.nr_clusters,
		pack_policy_current()->name);
	for (int cpu = 0; cpu < sched_topo.nr_cpus; cpu++) {
		char line[256];

		topology_describe_cpu(&sched_topo, cpu, line, sizeof(line));
		kprintf("%s\n", line);
	}
	kprintf("topo: buddies");
	for (int cpu = 0; cpu < sched_topo.nr_cpus; cpu++)
		kprintf("%s%d", cpu ? "," : " ", sched_topo.pack_buddy[cpu]);
	kprintf("\n");
	return 0;
}

static int cmd_pack(int argc, char **argv)
{
	const struct pack_policy *policy;
	char names[PACK_POLICY_LIST_SIZE];

	if (argc > 2) {
		kprintf("error: usage: pack [list|MODE] (modes: %s)\n", pack_policy_list(names, sizeof(names)));
		return 1;
	}
	if (argc == 2 && strcmp(argv[1], "list") == 0) {
		for (int i = 0; (policy = pack_policy_at(i)) != NULL; i++)
			kprintf("pack: %s %s\n", policy->name, policy->desc);
		return 0;
	}
	if (argc == 2) {
		static int before[TOPO_MAX_CPUS];	/* the console is one task */
		bool changed = false;

		memcpy(before, sched_topo.pack_buddy, sizeof(before));
		policy = pack_policy_find(argv[1]);
		if (!policy || pack_set_policy(policy) != 0) {
			kprintf("error: unknown pack mode '%s' (%s)\n", argv[1], pack_policy_list(names, sizeof(names)));
			return 1;
		}
		kprintf("pack: mode %s\n", policy->name);
		for (int cpu = 0; cpu < sched_topo.nr_cpus; cpu++)
			changed |= before[cpu] != sched_topo.pack_buddy[cpu];
		/* The boot log's lines again only when the buddies moved. */
		if (changed)
			print_buddies();
		return 0;
	}
	policy = pack_policy_current();
	kprintf("pack: mode %s\n", policy->name);
	for (int cpu = 0; cpu < sched_nr_cpus(); cpu++) {
		const struct rq *rq = cpu_rq(cpu);

		char line[256];
		int n = ksnprintf(line, sizeof(line), "pack: cpu%d buddy=%d", cpu, sched_topo.pack_buddy[cpu]);

		for (int r = 0; r < policy->nr_reasons && n < (int)sizeof(line); r++)
			n += ksnprintf(line + n, sizeof(line) - (size_t)n, " %s=%llu", policy->reasons[r],
				       (unsigned long long)rq->pack_stats[r]);
		kprintf("%s\n", line);	/* one write: lines from other CPUs cannot split it */
	}
	return 0;
}

static const struct shell_cmd commands[] = {
	{ "topo", "", "scheduling domains, rails and pack buddies", cmd_topo },
	{ "pack", "[list|MODE]", "placement policy and its counters; list the policies; switch to MODE",
	  cmd_pack },
};

SHELL_COMMANDS(commands);
