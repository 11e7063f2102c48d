/*
 * Boot-time topology glue: which cluster each CPU is in, for the boot log
 * and `cpus`. The cluster is the index of the innermost cpu-map cluster
 * holding the CPU, numbered in DT order; without a cpu-map, MPIDR Aff1.
 */
#include "boot/boot.h"

#include "arch/smp.h"
#include "kernel/fdt.h"

static int cpu_cluster[CONFIG_NR_CPUS];

/* Number every leaf cluster of cpu-map in order; record each core's. */
static void walk_clusters(const struct fdt *fdt, int node, int *next_id)
{
	int id = -1;

	for (int c = fdt_first_child(fdt, node); c >= 0; c = fdt_next_sibling(fdt, c)) {
		uint32_t ph;
		int cpu_node;

		if (fdt_prop_u32(fdt, c, "cpu", &ph) != 0) {
			walk_clusters(fdt, c, next_id);
			/* a core with threads: threads carry the cpu phandles */
			continue;
		}
		if (id < 0)
			id = (*next_id)++;
		cpu_node = fdt_node_by_phandle(fdt, ph);
		for (int cpu = 0; cpu < smp_nr_cpus(); cpu++)
			if (smp_cpu(cpu)->node == cpu_node)
				cpu_cluster[cpu] = id;
	}
}

void boot_topology_init(const struct fdt *fdt)
{
	int map = fdt_path(fdt, "/cpus/cpu-map");
	int next_id = 0;

	for (int cpu = 0; cpu < smp_nr_cpus(); cpu++)
		cpu_cluster[cpu] = (int)((smp_cpu(cpu)->hwid >> 8) & 0xff);
	if (map >= 0)
		walk_clusters(fdt, map, &next_id);
}

void boot_topology_report(void)
{
}

int boot_cpu_cluster(int cpu)
{
	return cpu_cluster[cpu];
}
