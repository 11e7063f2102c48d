/*
 * The ARM port's console commands (poweroff, reboot) and what the machine
 * commands ask of it (include/arch/machine.h: cpus, uptime).
 */
#include "boot/boot.h"

#include "arch/machine.h"
#include "arch/smp.h"
#include "drivers/timer.h"
#include "kernel/lib/printk.h"
#include "kernel/console/shell.h"
#include "kernel/time/time.h"
#include "kernel/sched/topology.h"

static const char *const state_names[] = {
	[CPU_ABSENT] = "absent", [CPU_BOOTING] = "booting", [CPU_ONLINE] = "online",
	[CPU_TIMED_OUT] = "offline (timed out)", [CPU_FAILED] = "offline (failed)",
	[CPU_STOPPED] = "stopped",
};

void arch_cpu_describe(int cpu, struct arch_cpu_desc *d)
{
	const struct cpu_info *c = smp_cpu(cpu);

	d->hwid = c->hwid;
	d->state = state_names[c->state];
	d->compatible = c->compatible;
}

uint64_t arch_boot_ns(void)
{
	return boot_time_ns();
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
	{ "poweroff", "", "power the machine off (QEMU exits)", cmd_poweroff },
	{ "reboot", "", "reset the machine", cmd_reboot },
};

SHELL_COMMANDS(commands);
