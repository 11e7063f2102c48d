/*
 * The placement policy interface (include/kernel/pack/pack.h) from outside the
 * kernel: a policy of the test's own (tests/host/policy_lowest_idle.c) is
 * registered in the table, found by name, made current with
 * pack_set_policy() and drives select_task_rq() (sched_select_task_rq())
 * and the per-CPU outcome counters; the table rejects what breaks the
 * contract. On the live host scheduler of tests/host/host_sched.h.
 */
#include <stdio.h>
#include <string.h>

#include "ktest.h"
#include "host_sched.h"
#include "kernel/pack/pack.h"
#include "kernel/sched/sched.h"
#include "kernel/sched/sched_internal.h"

extern const struct pack_policy policy_lowest_idle;

static struct task wakee, busy[64];

static void machine(int n)
{
	host_boot_machine(n, PACK_DEFAULT_POLICY);
	host_sleeper(&wakee, "wakee", n);
}

static int place(int prev)
{
	wakee.cpu = prev;
	return sched_select_task_rq(&wakee, prev, true);
}

static void make_idle(int cpu)
{
	struct rq *rq = cpu_rq(cpu);

	rq->curr = rq->idle;
	rq->cfs.nr_running = 0;
	rq->nr_running = 0;
	sched_set_idle_hint(cpu, true);
}

/* Registration is once per process: the table has no removal. */
static int ensure_registered(void)
{
	return pack_policy_find("lowest_idle") ? 0 : pack_policy_register(&policy_lowest_idle);
}

KT_CASE(a_policy_from_outside_the_kernel_places_wakeups)
{
	char names[PACK_POLICY_LIST_SIZE], before[PACK_POLICY_LIST_SIZE], want[PACK_POLICY_LIST_SIZE + 16];
	bool had = pack_policy_find("lowest_idle") != NULL;

	pack_policy_list(before, sizeof(before));
	KT_ASSERT_EQ(ensure_registered(), 0);
	KT_ASSERT_EQ(pack_policy_find("lowest_idle"), &policy_lowest_idle);
	KT_ASSERT_EQ(pack_policy_at(pack_policy_count() - 1), &policy_lowest_idle);
	/* Registered at run time: at the end of the linked table. */
	snprintf(want, sizeof(want), had ? "%s" : "%s, lowest_idle", before);
	KT_ASSERT_STREQ(pack_policy_list(names, sizeof(names)), want);

	machine(16);
	KT_ASSERT_EQ(pack_set_policy(&policy_lowest_idle), 0);
	KT_ASSERT_EQ(pack_policy_current(), &policy_lowest_idle);
	/* No buddies: the policy has no buddy rule. */
	for (int c = 0; c < 16; c++)
		KT_ASSERT_EQ(sched_topo.pack_buddy[c], -1);
	/* All idle: CPU 0 whatever prev is (the default placement would keep prev 9). */
	KT_ASSERT_EQ(place(9), 0);
	KT_ASSERT_EQ(cpu_rq(9)->pack_stats[0], 1u);
	/* CPUs 0..5 busy: the lowest idle one is 6. */
	for (int c = 0; c < 6; c++)
		host_run_busy(&busy[c], c);
	KT_ASSERT_EQ(place(12), 6);
	/* Affinity: not 6..7. */
	cpumask_t m = { { 0 } };

	for (int c = 8; c < 16; c++)
		cpumask_set(&m, c);
	task_set_cpus(&wakee, &m);
	KT_ASSERT_EQ(place(12), 8);
	/* Nothing idle: the policy declines and the default path keeps prev. */
	for (int c = 6; c < 16; c++)
		host_run_busy(&busy[c], c);
	KT_ASSERT_EQ(place(12), 12);
	KT_ASSERT_EQ(cpu_rq(12)->pack_stats[1], 1u);
	/* One idle again: taken. */
	make_idle(14);
	KT_ASSERT_EQ(place(12), 14);
	KT_ASSERT_EQ(cpu_rq(12)->pack_stats[0], 3u);

	/* Back to the default policy: buddies and its own counters (reset by the switch). */
	KT_ASSERT_EQ(pack_set_policy(PACK_DEFAULT_POLICY), 0);
	KT_ASSERT_EQ(cpu_rq(12)->pack_stats[0], 0u);
	KT_ASSERT_EQ(sched_topo.pack_buddy[12], topology_pack_buddy(&sched_topo, 12));
}

static int nop_select(const struct task *p, int prev_cpu, int *target)
{
	(void)p;
	(void)prev_cpu;
	(void)target;
	return 0;
}

static const char *const one_reason[] = { "nop" };

KT_CASE(the_table_refuses_what_breaks_the_contract)
{
	static const char *const null_reason[] = { NULL };
	static const struct pack_policy no_select = { .name = "x1", .desc = "d", .reasons = one_reason, .nr_reasons = 1 };
	static const struct pack_policy bad_name = { .name = "Bad Name", .desc = "d", .select = nop_select,
						     .reasons = one_reason, .nr_reasons = 1 };
	static const struct pack_policy taken = { .name = "rails", .desc = "d", .select = nop_select,
						  .reasons = one_reason, .nr_reasons = 1 };
	static const struct pack_policy no_reasons = { .name = "x2", .desc = "d", .select = nop_select,
						       .reasons = one_reason, .nr_reasons = 0 };
	static const struct pack_policy too_many = { .name = "x3", .desc = "d", .select = nop_select,
						     .reasons = one_reason, .nr_reasons = PACK_MAX_REASONS + 1 };
	static const struct pack_policy null_name = { .name = "x4", .desc = "d", .select = nop_select,
						      .reasons = null_reason, .nr_reasons = 1 };
	static const struct pack_policy unregistered = { .name = "x5", .desc = "d", .select = nop_select,
							 .reasons = one_reason, .nr_reasons = 1 };
	int before = pack_policy_count();

	KT_ASSERT_EQ(pack_policy_register(NULL), -1);
	KT_ASSERT_EQ(pack_policy_register(&no_select), -1);
	KT_ASSERT_EQ(pack_policy_register(&bad_name), -1);
	KT_ASSERT_EQ(pack_policy_register(&taken), -1);
	KT_ASSERT_EQ(pack_policy_register(&no_reasons), -1);
	KT_ASSERT_EQ(pack_policy_register(&too_many), -1);
	KT_ASSERT_EQ(pack_policy_register(&null_name), -1);
	KT_ASSERT_EQ(pack_policy_count(), before);
	/* Only a policy of the table can be made current. */
	machine(4);
	KT_ASSERT_EQ(pack_set_policy(&unregistered), -1);
	KT_ASSERT_EQ(pack_set_policy(NULL), -1);
	KT_ASSERT_EQ(pack_policy_current(), PACK_DEFAULT_POLICY);
}

KT_CASE(the_table_fills_up)
{
	static struct pack_policy extra[PACK_MAX_POLICIES];
	static char name[PACK_MAX_POLICIES][16];
	int added = 0;

	KT_ASSERT_EQ(ensure_registered(), 0);
	for (int i = 0; i < PACK_MAX_POLICIES; i++) {
		snprintf(name[i], sizeof(name[i]), "fill%d", i);
		extra[i] = (struct pack_policy){ .name = name[i], .desc = "d", .select = nop_select,
						 .reasons = one_reason, .nr_reasons = 1 };
		if (pack_policy_register(&extra[i]) == 0)
			added++;
	}
	KT_ASSERT_EQ(pack_policy_count(), PACK_MAX_POLICIES);
	KT_ASSERT_EQ(added, PACK_MAX_POLICIES - 5);
	KT_ASSERT_EQ(pack_policy_at(PACK_MAX_POLICIES), NULL);
}

