/*
 * A placement policy written outside the kernel, as a researcher would add
 * one (README.md, "Adding a placement policy"): every waking task goes to
 * the lowest-numbered idle CPU it may use; with none idle, the kernel's
 * default placement decides. tests/host/test_policy.c registers it and
 * drives it through select_task_rq(); tests/qemu/test_registration.py
 * drops this file, as it is, into a copy of kernel/pack/ and finds the
 * policy everywhere a mode is taken. Nothing in kernel/ knows of it.
 */
#include "kernel/pack/pack.h"
#include "kernel/sched/sched.h"
#include "kernel/sched/sched_internal.h"

enum { LOWEST_IDLE, LOWEST_NONE_IDLE, LOWEST_NR };

static const char *const lowest_reasons[LOWEST_NR] = { "lowest_idle", "none_idle" };

static int lowest_idle_select(const struct task *p, int prev_cpu, int *target)
{
	(void)prev_cpu;
	for (int cpu = 0; cpu < sched_nr_cpus(); cpu++)
		if (task_allowed_on(p, cpu) && cpu_idle_now(cpu)) {
			*target = cpu;
			return LOWEST_IDLE;
		}
	return LOWEST_NONE_IDLE;
}

const struct pack_policy policy_lowest_idle = {
	.name = "lowest_idle",
	.desc = "every wake-up on the lowest-numbered idle CPU (a test's own policy)",
	.select = lowest_idle_select,
	.reasons = lowest_reasons,
	.nr_reasons = LOWEST_NR,
};
PACK_POLICY(policy_lowest_idle, PACK_RANK_OTHER);
