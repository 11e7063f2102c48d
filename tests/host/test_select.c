/*
 * Wake-up placement (select_task_rq() through sched_select_task_rq(), and
 * wake_up()) on a live host scheduler with up to 1024 CPUs, whose CPU sets
 * span many words: the machine of tests/host/host_sched.h (clusters of 4,
 * packages of 16, one rail per cluster; pack=off so that only the idle
 * search places). Checked against what the rule says:
 * - an idle prev keeps the task;
 * - else the nearest idle CPU: prev's cluster, then its package, then
 *   anywhere, wherever in the sets it sits (bits beyond the first words);
 * - affinity is honoured, and a task allowed on one CPU goes there;
 * - with no idle CPU at all the task stays on prev;
 * - the idle set and its count follow the CPUs going busy and idle.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "ktest.h"
#include "host_sched.h"
#include "arch/cpu.h"
#include "kernel/sched.h"
#include "kernel/sched/sched_internal.h"

static struct task wakee, busy[TOPO_MAX_CPUS];

/* The wakee may run on CPUs @lo..@hi-1. */
static void allow(int lo, int hi)
{
	cpumask_t m = { { 0 } };

	for (int c = lo; c < hi; c++)
		cpumask_set(&m, c);
	task_set_cpus(&wakee, &m);
}

/* The wakee may run on CPUs @a and @b. */
static void allow2(int a, int b)
{
	cpumask_t m = { { 0 } };

	cpumask_set(&m, a);
	cpumask_set(&m, b);
	task_set_cpus(&wakee, &m);
}

/* @n CPUs online, all idle, packing off. */
static void machine(int n)
{
	host_make_topology(&sched_topo, n);
	topology_build(&sched_topo, &policy_off);
	sched_init(n);
	for (int c = 0; c < n; c++) {
		host_set_cpu_id(c);
		sched_init_cpu(c);
		sched_cpu_online(c);
	}
	host_set_cpu_id(0);
	memset(&wakee, 0, sizeof(wakee));
	wakee.tid = 1;
	strcpy(wakee.name, "wakee");
	se_init(&wakee.se, 0);
	pelt_init(&wakee.se.avg, host_fake_now);
	allow(0, n);
	wakee.state = TASK_SLEEPING;
}

static void make_busy(int cpu)
{
	host_run_busy(&busy[cpu], cpu);
}

static void make_idle(int cpu)
{
	struct rq *rq = cpu_rq(cpu);

	rq->curr = rq->idle;
	rq->cfs.nr_running = 0;
	sched_set_idle_hint(cpu, true);
}

static int place(int prev)
{
	wakee.cpu = prev;
	return sched_select_task_rq(&wakee, prev, true);
}

KT_CASE(idle_prev_keeps_the_task)
{
	machine(1024);
	KT_ASSERT_EQ(place(700), 700);
	KT_ASSERT_EQ(place(5), 5);
}

KT_CASE(nearest_idle_cpu_cluster_then_package_then_anywhere)
{
	int n = 1024;

	machine(n);
	for (int c = 0; c < n; c++)
		make_busy(c);
	/* prev 700: cluster 700..703, package 688..703 (16 CPUs). */
	make_idle(1000);
	KT_ASSERT_EQ(place(700), 1000);	/* only one idle CPU, far away: found */
	make_idle(690);
	KT_ASSERT_EQ(place(700), 690);	/* same package beats anywhere */
	make_idle(702);
	KT_ASSERT_EQ(place(700), 702);	/* same cluster beats the package */
	make_idle(700);
	KT_ASSERT_EQ(place(700), 700);	/* prev itself first */
}

KT_CASE(busy_machine_stays_on_prev)
{
	machine(1024);
	for (int c = 0; c < 1024; c++)
		make_busy(c);
	KT_ASSERT_EQ(place(700), 700);
	KT_ASSERT_EQ(place(31), 31);
	KT_ASSERT_EQ(place(32), 32);
	/* The idle set is empty again: its words, and the count that lets wake-ups skip it. */
	for (int i = 0; i < CPUMASK_WORDS; i++)
		KT_ASSERT_EQ(idle_hint.w[i], 0u);
}

KT_CASE(affinity_is_honoured_beyond_the_first_word)
{
	machine(1024);
	for (int c = 0; c < 1024; c++)
		make_busy(c);
	make_idle(100);
	make_idle(900);
	allow2(700, 900);
	KT_ASSERT_EQ(place(700), 900);	/* 100 is idle but not allowed */
	/* prev not allowed and nothing allowed idle: the first allowed CPU. */
	make_busy(900);
	allow2(600, 650);
	KT_ASSERT_EQ(place(700), 600);
}

KT_CASE(a_task_allowed_on_one_cpu_goes_there)
{
	uint64_t before[PACK_MAX_REASONS];

	machine(64);
	memcpy(before, cpu_rq(3)->pack_stats, sizeof(before));
	allow(40, 41);
	KT_ASSERT_EQ(place(3), 40);
	/* No placement ran: no packing outcome counted. */
	KT_ASSERT(memcmp(before, cpu_rq(3)->pack_stats, sizeof(before)) == 0);
}

KT_CASE(wake_up_enqueues_on_the_chosen_cpu)
{
	machine(256);
	for (int c = 0; c < 256; c++)
		make_busy(c);
	make_idle(200);
	host_set_cpu_id(5);
	wakee.cpu = 5;
	KT_ASSERT(wake_up(&wakee));
	/* Remote: on CPU 200's wake list, waiting for the IPI (stubbed). */
	KT_ASSERT_EQ(wakee.cpu, 200);
	KT_ASSERT(cpu_rq(200)->wake_list == &wakee);
	KT_ASSERT_EQ(wakee.state, TASK_WAKING);
	KT_ASSERT(!wake_up(&wakee));	/* not sleeping any more: nothing to do */
	host_set_cpu_id(0);
}
