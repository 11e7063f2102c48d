/*
 * Console commands for the topology and packing:
 *   topo            domain levels, flags, groups, capacities, rails, buddies
 *   pack            the pack mode and per-CPU wake-up packing counters
 *   pack <mode>     switch to off | rails | all while tasks run
 */
#include <string.h>

#include "kernel/format.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/shell.h"
#include "kernel/topology.h"

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
		pack_mode_name(sched_topo.pack));
	for (int cpu = 0; cpu < sched_topo.nr_cpus; cpu++) {
		char line[256];

		topology_describe_cpu(&sched_topo, cpu, line, sizeof(line));
		kprintf("%s\n", line);
	}
	print_buddies();
	return 0;
}

static int cmd_pack(int argc, char **argv)
{
	if (argc > 2) {
		kprintf("error: usage: pack [off|rails|all|energy]\n");
		return 1;
	}
	if (argc == 2) {
		int mode = pack_mode_parse(argv[1]);

		if (mode < 0 || pack_set_mode(mode) != 0) {
			kprintf("error: unknown pack mode '%s' (off, rails, all, energy)\n", argv[1]);
			return 1;
		}
		kprintf("pack: mode %s\n", pack_mode_name(sched_topo.pack));
		print_buddies();
		return 0;
	}
	kprintf("pack: mode %s\n", pack_mode_name(sched_topo.pack));
	for (int cpu = 0; cpu < sched_nr_cpus(); cpu++) {
		const struct rq *rq = cpu_rq(cpu);

		char line[256];
		int n = ksnprintf(line, sizeof(line), "pack: cpu%d buddy=%d", cpu, sched_topo.pack_buddy[cpu]);

		for (int r = 0; r < PACK_NR_REASONS && n < (int)sizeof(line); r++)
			n += ksnprintf(line + n, sizeof(line) - (size_t)n, " %s=%llu", pack_reason_names[r],
				       (unsigned long long)rq->pack_stats[r]);
		kprintf("%s\n", line);	/* one write: lines from other CPUs cannot split it */
	}
	return 0;
}

static const struct shell_cmd commands[] = {
	{ "topo", "", "scheduling domains, rails and pack buddies", cmd_topo },
	{ "pack", "[off|rails|all|energy]", "show packing counters, or change the pack mode", cmd_pack },
};

void pack_commands_register(void)
{
	SHELL_REGISTER_TABLE(commands);
}
