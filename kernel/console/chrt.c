/*
 * `chrt` as util-linux's (docs/interfaces.md):
 *   chrt [-f|-r|-o] PRIO <command ...>   run the command with that policy:
 *                                        it and the tasks it creates
 *   chrt -p TID                          print a task's policy and priority
 *   chrt [-f|-r|-o] -p PRIO TID          change a task's
 *   chrt -m                              the priority range of each policy
 * Without a policy option the policy is SCHED_RR, as util-linux's. A bad
 * policy, priority or task id: one `error: chrt: ...` line, nothing changes.
 */
#include <string.h>

#include "kernel/console/shell.h"
#include "kernel/lib/cmdline.h"
#include "kernel/lib/printk.h"
#include "kernel/sched/sched.h"

struct chrt_args {
	int policy;		/* -1: not given */
	bool pid_mode, show_range;
	int first;		/* index of the first operand */
};

/* Options before the operands; false after printing the error. */
static bool parse_options(int argc, char **argv, struct chrt_args *a)
{
	a->policy = -1;
	a->pid_mode = false;
	a->show_range = false;
	for (a->first = 1; a->first < argc && argv[a->first][0] == '-' && argv[a->first][1]; a->first++) {
		const char *o = argv[a->first];
		int pol = -1;

		if (!strcmp(o, "-f") || !strcmp(o, "--fifo"))
			pol = SCHED_FIFO;
		else if (!strcmp(o, "-r") || !strcmp(o, "--rr"))
			pol = SCHED_RR;
		else if (!strcmp(o, "-o") || !strcmp(o, "--other"))
			pol = SCHED_OTHER;
		else if (!strcmp(o, "-b") || !strcmp(o, "--batch") || !strcmp(o, "-i") || !strcmp(o, "--idle") ||
			 !strcmp(o, "-d") || !strcmp(o, "--deadline")) {
			kprintf("error: chrt: policy %s is not supported (SCHED_OTHER, SCHED_FIFO and SCHED_RR are)\n", o);
			return false;
		} else if (!strcmp(o, "-p") || !strcmp(o, "--pid")) {
			a->pid_mode = true;
			continue;
		} else if (!strcmp(o, "-m") || !strcmp(o, "--max")) {
			a->show_range = true;
			continue;
		} else if (!strcmp(o, "--")) {
			a->first++;
			break;
		} else {
			kprintf("error: chrt: unknown option '%s' (-f -r -o -p -m)\n", o);
			return false;
		}
		if (a->policy >= 0 && a->policy != pol) {
			kprintf("error: chrt: more than one policy given\n");
			return false;
		}
		a->policy = pol;
	}
	return true;
}

static bool parse_prio(const char *s, int policy, int *prio)
{
	long v;
	bool rt = policy == SCHED_FIFO || policy == SCHED_RR;

	if (!cmdline_parse_long(s, rt ? RT_PRIO_MIN : 0, rt ? RT_PRIO_MAX : 0, &v)) {
		if (rt)
			kprintf("error: chrt: priority '%s' out of range for %s (%d..%d)\n", s ? s : "",
				sched_policy_name(policy), RT_PRIO_MIN, RT_PRIO_MAX);
		else
			kprintf("error: chrt: priority '%s' out of range for %s (0 only)\n", s ? s : "",
				sched_policy_name(policy));
		return false;
	}
	*prio = (int)v;
	return true;
}

static struct task *parse_tid(const char *s)
{
	long v;
	struct task *t;

	if (!cmdline_parse_long(s, 1, 0x7fffffffL, &v)) {
		kprintf("error: chrt: '%s' is not a task id\n", s ? s : "");
		return NULL;
	}
	t = task_find((uint32_t)v);
	if (!t)
		kprintf("error: chrt: no task %ld\n", v);
	return t;
}

static void print_task(const struct task *t)
{
	kprintf("pid %u's current scheduling policy: %s\n", (unsigned)t->tid, sched_policy_name(t->policy));
	kprintf("pid %u's current scheduling priority: %d\n", (unsigned)t->tid, t->rt_priority);
}

static int chrt_pid(int argc, char **argv, const struct chrt_args *a)
{
	int nops = argc - a->first, prio;
	struct task *t;

	if (nops == 1) {
		if (a->policy >= 0) {
			kprintf("error: chrt: a policy needs a priority: chrt %s -p PRIO TID\n", argv[1]);
			return 1;
		}
		t = parse_tid(argv[a->first]);
		if (!t)
			return 1;
		print_task(t);
		return 0;
	}
	if (nops != 2) {
		kprintf("error: chrt: usage: chrt -p TID | chrt [-f|-r|-o] -p PRIO TID\n");
		return 1;
	}
	{
		int policy = a->policy >= 0 ? a->policy : SCHED_RR;

		if (!parse_prio(argv[a->first], policy, &prio))
			return 1;
		t = parse_tid(argv[a->first + 1]);
		if (!t)
			return 1;
		if (task_setscheduler(t, policy, prio) < 0) {
			kprintf("error: chrt: failed to set pid %u's policy (the task is idle or has exited)\n",
				(unsigned)t->tid);
			return 1;
		}
	}
	return 0;
}

static int chrt_run(int argc, char **argv, const struct chrt_args *a)
{
	struct task *self = current_task();
	int policy = a->policy >= 0 ? a->policy : SCHED_RR, prio, rc;
	int saved_policy = self->policy, saved_prio = self->rt_priority;
	int saved_spawn_policy = self->spawn_policy, saved_spawn_prio = self->spawn_prio;

	if (argc - a->first < 2) {
		kprintf("error: chrt: usage: chrt [-f|-r|-o] PRIO <command ...>\n");
		return 1;
	}
	if (!parse_prio(argv[a->first], policy, &prio))
		return 1;
	/* As chrt's exec: the command itself and every task it creates run with the policy. */
	if (task_set_spawn_policy(policy, prio) < 0 || task_setscheduler(self, policy, prio) < 0) {
		kprintf("error: chrt: cannot set %s %d\n", sched_policy_name(policy), prio);
		task_set_spawn_policy(saved_spawn_policy, saved_spawn_prio);
		return 1;
	}
	rc = shell_run_argv(argc - a->first - 1, argv + a->first + 1);
	task_setscheduler(self, saved_policy, saved_prio);
	task_set_spawn_policy(saved_spawn_policy, saved_spawn_prio);
	return rc;
}

static int cmd_chrt(int argc, char **argv)
{
	struct chrt_args a;

	if (!parse_options(argc, argv, &a))
		return 1;
	if (a.show_range) {
		kprintf("SCHED_OTHER min/max priority\t: 0/0\n");
		kprintf("SCHED_FIFO min/max priority\t: %d/%d\n", RT_PRIO_MIN, RT_PRIO_MAX);
		kprintf("SCHED_RR min/max priority\t: %d/%d\n", RT_PRIO_MIN, RT_PRIO_MAX);
		return 0;
	}
	if (a.pid_mode)
		return chrt_pid(argc, argv, &a);
	return chrt_run(argc, argv, &a);
}

static const struct shell_cmd commands[] = {
	{ "chrt", "[-f|-r|-o] PRIO <cmd...> | -p [PRIO] TID | -m",
	  "run a command, or change a task, with a real-time policy (util-linux's chrt)", cmd_chrt },
};

SHELL_COMMANDS(commands);
