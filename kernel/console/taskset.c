/*
 * `taskset <hexmask> <command ...>` (docs/interfaces.md): the tasks that
 * the command creates may run only on the CPUs of the mask, bit n = CPU n,
 * as many hex digits as there are CPUs. It narrows the calling task's
 * spawn set for the command's duration (task_create() applies it and new
 * tasks inherit it, so a background job or a benchmark's threads stay
 * inside), then restores it. Nested tasksets narrow further.
 */
#include <string.h>

#include "kernel/lib/cpumask.h"
#include "kernel/lib/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/console/shell.h"

/* "0x3", "3", "f0000000f": false if not hex or wider than the CPU sets. */
static bool parse_hex_mask(const char *s, cpumask_t *m)
{
	size_t n;

	memset(m, 0, sizeof(*m));
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	n = strlen(s);
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[n - 1 - i];
		unsigned int v;

		if (c >= '0' && c <= '9')
			v = (unsigned int)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v = (unsigned int)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v = (unsigned int)(c - 'A' + 10);
		else
			return false;
		for (int b = 0; b < 4; b++) {
			size_t cpu = i * 4 + (size_t)b;

			if (!((v >> b) & 1u))
				continue;
			if (cpu >= CONFIG_NR_CPUS)
				return false;
			cpumask_set(m, (int)cpu);
		}
	}
	return true;
}

static int cmd_taskset(int argc, char **argv)
{
	struct task *self = current_task();
	cpumask_t mask, saved;
	int rc;

	if (argc < 3) {
		kprintf("error: taskset: usage: taskset <hexmask> <command ...>\n");
		return 1;
	}
	if (!parse_hex_mask(argv[1], &mask)) {
		kprintf("error: taskset: '%s' is not a hex CPU mask of at most %d CPUs\n", argv[1], CONFIG_NR_CPUS);
		return 1;
	}
	if (cpumask_empty(&mask)) {
		kprintf("error: taskset: mask %s has no CPU\n", argv[1]);
		return 1;
	}
	cpumask_and(&mask, &mask, &sched_cpus_online);
	if (cpumask_empty(&mask)) {
		kprintf("error: taskset: mask %s has no online CPU\n", argv[1]);
		return 1;
	}
	saved = self->spawn_cpus;
	cpumask_and(&mask, &mask, &saved);
	if (cpumask_empty(&mask)) {
		kprintf("error: taskset: mask %s is outside the enclosing taskset\n", argv[1]);
		return 1;
	}
	self->spawn_cpus = mask;
	rc = shell_run_argv(argc - 2, argv + 2);
	self->spawn_cpus = saved;
	return rc;
}

static const struct shell_cmd commands[] = {
	{ "taskset", "<hexmask> <cmd...>", "run a command whose tasks may use only the CPUs of the mask",
	  cmd_taskset },
};

SHELL_COMMANDS(commands);
