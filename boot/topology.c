/*
 * Boot-time topology: build sched_topo (kernel/sched/topology.c) from the DT for
 * the placement policy named by bootarg "pack=" (include/kernel/pack.h),
 * check it agrees with the SMP code's CPU list, and report the pack buddies.
 */
#include "boot/boot.h"

#include "arch/smp.h"
#include "kernel/cmdline.h"
#include "kernel/fdt.h"
#include "kernel/pack.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "kernel/topology.h"

void boot_topology_init(const struct fdt *fdt)
{
	const struct pack_policy *policy = pack_policy_from_arg(bootargs_get(boot_args(), "pack"), "bootargs");
	char err[128];

	if (topology_parse_dt(fdt, &sched_topo, err, sizeof(err)) != 0)
		panic("dtb: topology: %s", err);
	if (sched_topo.nr_cpus != smp_nr_cpus())
		panic("topology: %d CPUs in the topology, %d known to SMP", sched_topo.nr_cpus,
		      smp_nr_cpus());
	topology_build(&sched_topo, policy);
}

void boot_topology_report(void)
{
	for (int cpu = 0; cpu < sched_topo.nr_cpus; cpu++)
		kprintf("CPU%d packing on CPU%d\n", cpu, sched_topo.pack_buddy[cpu]);
}

int boot_cpu_cluster(int cpu)
{
	return sched_topo.cpu[cpu].cluster;
}
