/*
 * The warm-boot subcommands of `idle` (kernel/console/energy_commands.c hands them over):
 *   idle resume-test [rounds] [psci|reset] [cpu<n>]   save/restore round trips (include/arch/power.h),
 *                                            on the shell's CPU or in a task pinned to cpu<n>
 *   idle warmboot [on|off]                   real cluster power-off in the domain states
 */
#include <string.h>

#include "arch/cpu.h"
#include "arch/power.h"
#include "kernel/lib/cmdline.h"
#include "kernel/sched/idle.h"
#include "kernel/lib/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/sched/topology.h"
#include "kernel/sched/warmboot.h"

/* Does any CPU have a state that powers its rail (cluster) down? */
static bool board_has_cluster_power_down(void)
{
	for (int cpu = 0; cpu < sched_topo.nr_cpus; cpu++) {
		const struct cpu_idle *ci = cpu_idle_of(cpu);

		for (int s = 0; s < ci->nr_states; s++)
			if (ci->states[s].domain)
				return true;
	}
	return false;
}

struct resume_test_args {
	int rounds;
	bool psci;
};

/* The test on another CPU: a task pinned there (its exit code is the result). */
static void resume_test_task(void *arg)
{
	const struct resume_test_args *a = arg;

	task_exit(platform_resume_test(a->rounds, a->psci));
}

static int resume_test(int argc, char **argv)
{
	struct resume_test_args a = { 10, false };
	unsigned long rounds, cpu = (unsigned long)arch_cpu_id();
	struct task *t;

	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "psci") == 0) {
			a.psci = true;
		} else if (strcmp(argv[i], "reset") == 0) {
			a.psci = false;
		} else if (i == 2 && cmdline_parse_ulong(argv[i], 1, RESUME_TEST_MAX_ROUNDS, &rounds)) {
			a.rounds = (int)rounds;
		} else if (strncmp(argv[i], "cpu", 3) == 0 &&
			   cmdline_parse_ulong(argv[i] + 3, 0, (unsigned long)sched_topo.nr_cpus - 1, &cpu)) {
			continue;
		} else {
			kprintf("error: usage: idle resume-test [rounds 1..%d] [psci|reset] [cpu<n>]\n",
				RESUME_TEST_MAX_ROUNDS);
			return 1;
		}
	}
	if (!board_has_cluster_power_down()) {
		kprintf("error: idle resume-test: this board has no cluster power-down (no domain idle state in the DT): "
			"there is no warm-boot path to test\n");
		return 1;
	}
	if ((int)cpu == arch_cpu_id())
		return platform_resume_test(a.rounds, a.psci);
	if (!sched_cpu_online_now((int)cpu)) {
		kprintf("error: idle resume-test: cpu%lu is offline\n", cpu);
		return 1;
	}
	t = task_create("resume-test", resume_test_task, &a, 0, 1u << cpu);
	if (!t) {
		kprintf("error: idle resume-test: cannot create a task on cpu%lu\n", cpu);
		return 1;
	}
	return task_join(t);
}

static int warmboot(int argc, char **argv)
{
	uint64_t entered, resumed, returned;
	int on;

	if (argc == 3 && (strcmp(argv[2], "on") == 0 || strcmp(argv[2], "off") == 0)) {
		if (platform_warmboot_set(strcmp(argv[2], "on") == 0) != 0) {
			kprintf("error: idle warmboot: not supported on this board (power %s: no SPC/CCI or PSCI "
				"cluster power-down); `idle resume-test` tests the resume path\n", platform_power_name());
			return 1;
		}
		/* Like a PM QoS update: idle CPUs choose their state again, now. */
		idle_set_latency_limit(idle_latency_limit_ns);
	} else if (argc != 2) {
		kprintf("error: usage: idle warmboot [on|off]\n");
		return 1;
	}
	on = platform_warmboot_get();
	platform_warmboot_stats(&entered, &resumed, &returned);
	kprintf("idle: warmboot %s (power %s) suspends=%llu resumed=%llu returned=%llu\n",
		on < 0 ? "unsupported" : on ? "on" : "off", platform_power_name(), (unsigned long long)entered,
		(unsigned long long)resumed, (unsigned long long)returned);
	return 0;
}

int idle_warmboot_command(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "resume-test") == 0)
		return resume_test(argc, argv);
	if (argc >= 2 && strcmp(argv[1], "warmboot") == 0)
		return warmboot(argc, argv);
	return -1;
}
