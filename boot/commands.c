/* Console commands of the foundation: cpus, uptime, poweroff, reboot. */
#include "boot/boot.h"

#include "arch/smp.h"
#include "drivers/timer.h"
#include "kernel/printk.h"
#include "kernel/shell.h"
#include "kernel/time.h"
#include "kernel/topology.h"

static const char *const state_names[] = {
	[CPU_ABSENT] = "absent", [CPU_BOOTING] = "booting", [CPU_ONLINE] = "online",
	[CPU_TIMED_OUT] = "offline (timed out)", [CPU_FAILED] = "offline (failed)",
	[CPU_STOPPED] = "stopped",
};

static int cmd_cpus(int argc, char **argv)
{
	(void)argv;
	if (argc != 1) {
		kprintf("error: cpus takes no arguments\n");
		return 1;
	}
	kprintf("cpu  mpidr     cluster  state    compatible\n");
	for (int cpu = 0; cpu < smp_nr_cpus(); cpu++) {
		const struct cpu_info *c = smp_cpu(cpu);

		kprintf("%-4d 0x%-7x %-8d %-8s %s\n", cpu, (unsigned)c->hwid,
			sched_cpu_cluster(cpu), state_names[c->state], c->compatible);
	}
	kprintf("%d of %d CPUs online\n", smp_nr_online(), smp_nr_cpus());
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
	ns = clock_ns() - boot_time_ns();
	kprintf("up %u.%06u s\n", (unsigned)(ns / NSEC_PER_SEC),
		(unsigned)((ns % NSEC_PER_SEC) / NSEC_PER_USEC));
	return 0;
}

static int cmd_poweroff(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	platform_poweroff();
}

static int cmd_reboot(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	platform_reboot();
}

static const struct shell_cmd commands[] = {
	{ "cpus", "", "list CPUs: mpidr, cluster, state, compatible", cmd_cpus },
	{ "uptime", "", "time since boot", cmd_uptime },
	{ "poweroff", "", "power the machine off (QEMU exits)", cmd_poweroff },
	{ "reboot", "", "reset the machine", cmd_reboot },
};

SHELL_COMMANDS(commands);
