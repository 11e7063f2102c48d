/*
 * Console commands about the machine, the same on every port:
 *   cpus     one line per CPU: logical number, MPIDR, cluster, state, compatible
 *   uptime   time since the kernel started
 * The port says what it knows of each CPU (include/arch/machine.h).
 */
#include "arch/machine.h"
#include "arch/timer.h"
#include "kernel/lib/cpumask.h"
#include "kernel/lib/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/console/shell.h"
#include "kernel/time/time.h"
#include "kernel/sched/topology.h"

static int cmd_cpus(int argc, char **argv)
{
	(void)argv;
	if (argc != 1) {
		kprintf("error: cpus takes no arguments\n");
		return 1;
	}
	kprintf("cpu  mpidr     cluster  state    compatible\n");
	for (int cpu = 0; cpu < sched_nr_cpus(); cpu++) {
		struct arch_cpu_desc d;

		arch_cpu_describe(cpu, &d);
		kprintf("%-4d 0x%-7x %-8d %-8s %s\n", cpu, (unsigned)d.hwid, sched_cpu_cluster(cpu), d.state,
			d.compatible);
	}
	kprintf("%d of %d CPUs online\n", cpumask_weight(&sched_cpus_online), sched_nr_cpus());
	return 0;
}

static int cmd_uptime(int argc, char **argv)
{
	uint64_t ns;

	(void)argv;
	if (argc != 1) {
		kprintf("error: uptime takes no arguments\n");
		return 1;
	}
	ns = arch_now_ns() - arch_boot_ns();
	kprintf("up %u.%06u s\n", (unsigned)(ns / NSEC_PER_SEC), (unsigned)((ns % NSEC_PER_SEC) / NSEC_PER_USEC));
	return 0;
}

static const struct shell_cmd commands[] = {
	{ "cpus", "", "list CPUs: mpidr, cluster, state, compatible", cmd_cpus },
	{ "uptime", "", "time since boot", cmd_uptime },
};
SHELL_COMMANDS(commands);
