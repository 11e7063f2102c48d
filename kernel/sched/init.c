/*
 * The kernel's init over a device tree: one sequence that every port calls
 * (boot/boot.c on ARM, tools/schedsim on the simulator, tests/host for a
 * machine booted from a DTB), so that what a DT makes of the scheduler is
 * the same on every engine.
 */
#include "kernel/sched/cpufreq.h"
#include "kernel/sched/energy.h"
#include "kernel/sched/idle.h"
#include "kernel/sched/sched.h"
#include "kernel/sched/topology.h"

void kernel_init_dt(const struct fdt *fdt, int nr_cpus, const char *pack)
{
	sched_init(nr_cpus);
	sched_topology_init_dt(fdt, pack, nr_cpus);
	idle_init_dt(fdt);
	cpufreq_init_dt(fdt);
	energy_init_dt(fdt);
}
