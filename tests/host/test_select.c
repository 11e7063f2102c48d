/*
 * Placement when the placement policy leaves a task alone
 * (kernel/sched/select.c: select_task_rq() through sched_select_task_rq(),
 * wake_up() and sched_start_task()) on a live host scheduler with up to
 * 1024 CPUs, whose CPU sets span many words: the machine of
 * tests/host/host_sched.h (clusters of 4, packages of 16, one rail per
 * cluster; pack=off so that only this rule places). Checked against the
 * rule of docs/placement.md (Linux 3.7's):
 * - a wake-up by prev's own CPU (a task's timer): an idle prev keeps the
 *   task, else an idle CPU of prev's cluster, else prev; never an idle CPU
 *   of another cluster, however many there are;
 * - a wake-up from another CPU: wake_affine() pulls the task to the
 *   waker's CPU (and its cluster's idle CPUs) when the waker is idle or
 *   no busier than prev with the task added, and leaves it otherwise;
 * - a new task goes to the idlest cluster's idlest CPU, machine-wide;
 * - affinity is honoured, and a task allowed on one CPU goes there; a
 *   task whose prev it may no longer use is placed as a new task;
 * - the idle set and its count follow the CPUs going busy and idle.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "ktest.h"
#include "dtb_file.h"
#include "host_sched.h"
#include "arch/cpu.h"
#include "kernel/pack/pack.h"
#include "kernel/pack/buddy.h"
#include "kernel/sched/sched.h"
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
	host_boot_machine(n, &policy_off);
	host_sleeper(&wakee, "wakee", n);
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
	rq->nr_running = 0;
	rq->cfs.load_weight = 0;
	sched_set_idle_hint(cpu, true);
}

/* @cpu runs one task and has @n - 1 more queued (weights only: what placement reads). */
static void make_loaded(int cpu, unsigned int n)
{
	if (cpu_rq(cpu)->curr->is_idle)
		make_busy(cpu);	/* once: it takes the CPU out of the idle set's count */
	cpu_rq(cpu)->cfs.nr_running = n;
	cpu_rq(cpu)->nr_running = n;
	cpu_rq(cpu)->cfs.load_weight = (uint64_t)n * NICE_0_WEIGHT;
}

/* A wake-up of the wakee, last run on @prev, by CPU @waker. */
static int wake_from(int waker, int prev)
{
	int cpu;

	host_set_cpu_id(waker);
	wakee.cpu = prev;
	cpu = sched_select_task_rq(&wakee, prev, true);
	host_set_cpu_id(0);
	return cpu;
}

/* A wake-up by prev's own CPU (its timer). */
static int place(int prev)
{
	return wake_from(prev, prev);
}

KT_CASE(idle_prev_keeps_the_task)
{
	machine(1024);
	KT_ASSERT_EQ(place(700), 700);
	KT_ASSERT_EQ(place(5), 5);
}

KT_CASE(a_wake_up_looks_for_idle_cpus_in_prevs_cluster_only)
{
	int n = 1024;

	machine(n);
	for (int c = 0; c < n; c++)
		make_busy(c);
	/* prev 700: cluster 700..703, package 688..703 (16 CPUs). */
	make_idle(1000);
	KT_ASSERT_EQ(place(700), 700);	/* an idle CPU far away: not taken */
	make_idle(690);
	KT_ASSERT_EQ(place(700), 700);	/* nor one in the package, another cluster */
	make_idle(703);
	KT_ASSERT_EQ(place(700), 703);	/* one in the cluster is */
	make_idle(702);
	KT_ASSERT_EQ(place(700), 702);	/* the cluster's first */
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

KT_CASE(wake_affine_pulls_to_an_idle_or_lighter_waker)
{
	machine(64);
	for (int c = 0; c < 64; c++)
		make_busy(c);
	/* An idle waker (load 0) in another package pulls: Linux 3.7's "balanced" when this_load is 0. */
	make_idle(36);
	KT_ASSERT_EQ(wake_from(36, 5), 36);
	/*
	 * Big waker 36 with one task against big prev 5 with three: 100 x (1 + 1)
	 * <= 112 x 3, pulled to the waker's CPU. Capacities count: little 40
	 * (half of 5) with one task does not pull (100 x 1024 x 2 > 112 x 512 x 3).
	 */
	make_busy(36);
	make_loaded(5, 3);
	KT_ASSERT_EQ(wake_from(36, 5), 36);
	KT_ASSERT_EQ(wake_from(40, 5), 5);
	/* ... and to an idle CPU of the waker's cluster (36..39) when there is one. */
	make_idle(38);
	KT_ASSERT_EQ(wake_from(36, 5), 38);
	make_busy(38);
	/* Two tasks each: 100 x 3 > 112 x 2, and the waker is not lighter: stays on prev. */
	make_loaded(36, 2);
	make_loaded(5, 2);
	KT_ASSERT_EQ(wake_from(36, 5), 5);
	/* A waker with three against a prev with one: stays, and takes prev's cluster's idle CPU. */
	make_loaded(36, 3);
	make_loaded(5, 1);
	make_idle(6);
	KT_ASSERT_EQ(wake_from(36, 5), 6);
	/* A waker the task may not use is not a candidate. */
	make_idle(36);
	allow(0, 32);
	KT_ASSERT_EQ(wake_from(36, 5), 6);
}

KT_CASE(a_new_task_goes_to_the_idlest_cluster)
{
	machine(64);
	/* 64 CPUs: packages of 16 (clusters 0-3 big, then little); the creator on CPU 0 is busy. */
	make_busy(0);
	host_set_cpu_id(0);
	/* Package 0 holds the load: another package, its first cluster's first CPU (Linux's ties). */
	KT_ASSERT_EQ(select_idlest_cpu(&wakee, 0) / 16 != 0, 1);
	/* With every package but package 3 loaded, package 3; in it the cluster without load. */
	for (int c = 0; c < 48; c++)
		make_busy(c);
	for (int c = 48; c < 52; c++)
		make_busy(c);
	KT_ASSERT_EQ(select_idlest_cpu(&wakee, 0) / 4 != 12, 1);
	KT_ASSERT_EQ(select_idlest_cpu(&wakee, 0) / 16, 3);
	/*
	 * All loaded but CPU 9, a little one: per unit of capacity its cluster
	 * is still busier than the creator's big one (3 x 2 tasks on 2048 against
	 * 4 x 2 on 4096): the creator's CPU. With big CPU 5 idle instead, 5.
	 */
	for (int c = 0; c < 64; c++)
		make_loaded(c, 2);
	make_idle(9);
	KT_ASSERT_EQ(select_idlest_cpu(&wakee, 0), 0);
	make_loaded(9, 2);
	make_idle(5);
	KT_ASSERT_EQ(select_idlest_cpu(&wakee, 0), 5);
	/* Affinity: only CPUs 60..63 allowed, the least loaded of them. */
	allow(60, 64);
	make_loaded(60, 3);
	make_loaded(61, 1);
	KT_ASSERT_EQ(select_idlest_cpu(&wakee, 0), 61);
}

KT_CASE(affinity_is_honoured_beyond_the_first_word)
{
	machine(1024);
	for (int c = 0; c < 1024; c++)
		make_busy(c);
	make_idle(100);
	make_idle(902);
	allow(900, 904);
	KT_ASSERT_EQ(place(901), 902);	/* an idle CPU of the cluster, in the 29th word */
	make_idle(903);
	allow2(901, 903);
	KT_ASSERT_EQ(place(901), 903);	/* 902 is idle but not allowed */
	/* prev not allowed: placed as a new task, among the allowed (100 is idle but not allowed). */
	allow2(600, 650);
	make_loaded(600, 2);
	KT_ASSERT_EQ(place(700), 650);
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
	make_idle(6);
	host_set_cpu_id(5);
	wakee.cpu = 5;
	KT_ASSERT(wake_up(&wakee));
	/* Remote: on CPU 6's wake list (prev's cluster, not 200), waiting for the IPI (stubbed). */
	KT_ASSERT_EQ(wakee.cpu, 6);
	KT_ASSERT(cpu_rq(6)->wake_list == &wakee);
	KT_ASSERT(cpu_rq(200)->wake_list == NULL);
	KT_ASSERT_EQ(wakee.state, TASK_WAKING);
	KT_ASSERT(!wake_up(&wakee));	/* not sleeping any more: nothing to do */
	host_set_cpu_id(0);
}

/*
 * A fair wakee is placed, and judged for preemption, against the running
 * fair task's vruntime as of the wake-up: activate() brings curr's runtime
 * up to date before the enqueue (here 50 ms since its last update).
 */
KT_CASE(a_fair_wake_up_accounts_the_running_tasks_runtime_first)
{
	struct rq *rq;

	machine(4);
	make_busy(1);
	rq = cpu_rq(1);
	rq->cfs.curr = &busy[1].se;
	busy[1].se.exec_start = host_fake_now;
	allow2(1, 1);
	host_fake_now += 50000000ull;
	host_set_cpu_id(1);
	wakee.cpu = 1;
	KT_ASSERT(wake_up(&wakee));
	KT_ASSERT_EQ(wakee.cpu, 1);
	KT_ASSERT_EQ(busy[1].se.sum_exec_runtime, 50000000ull);
	KT_ASSERT_EQ(busy[1].se.exec_start, host_fake_now);
	KT_ASSERT(rq->need_resched);	/* 50 ms ahead of a sleeper: it gives way */
	host_set_cpu_id(0);
}

/*
 * The case on a machine with power rails (pack=rails): 16 CPUs,
 * clusters of 4 (0-7 big, 8-15 little, one rail each; buddies 8,..,8, then
 * 8..11 their own, 12..15 on 8). A light task of CPU 9 wakes while its
 * buddy (itself) and its cluster's other CPUs are busy, and every other
 * CPU is idle: it stays on 9 (the old rule took an idle CPU of another
 * cluster, powering up a rail packing had let go off).
 */
KT_CASE(a_light_task_whose_buddy_and_cluster_are_busy_stays_in_its_cluster)
{
	machine(16);
	topology_build(&sched_topo, &policy_rails);
	KT_ASSERT_EQ(sched_topo.pack_buddy[9], 9);
	KT_ASSERT_EQ(sched_topo.pack_buddy[0], 8);
	for (int c = 8; c < 12; c++) {
		struct rq *rq = cpu_rq(c);

		make_busy(c);
		/* Busy for a while: the buddy test sees usage << nr_running > period. */
		rq->avg.runnable_avg_sum = rq->avg.usage_avg_sum = rq->avg.runnable_avg_period = 40000;
	}
	/* Light: running 2% of the time, never waiting. */
	wakee.se.avg.runnable_avg_sum = wakee.se.avg.usage_avg_sum = 800;
	wakee.se.avg.runnable_avg_period = 40000;
	KT_ASSERT_EQ(place(9), 9);
	KT_ASSERT_EQ(cpu_rq(9)->pack_stats[BUDDY_BUSY], 1u);
	/* One CPU of its cluster idle: that one. */
	make_idle(11);
	KT_ASSERT_EQ(place(9), 11);
	topology_build(&sched_topo, &policy_off);
}

/*
 * The kernel init every port calls (kernel_init_dt()) on qemu-tc2's DT:
 * buddies 2,2,2,3,4 for pack=rails, each CPU's cluster as its wake-up
 * search span (A15s {0,1}, A7s {2,3,4}), and a light A15 task whose buddy
 * is busy stays among the A15s.
 */
KT_CASE(kernel_init_dt_boots_qemu_tc2s_dt)
{
	static struct dtb d;
	static const int buddy[] = { 2, 2, 2, 3, 4 };
	char why[300];

	KT_ASSERT_MSG(dtb_load("build/qemu-tc2/qemu-tc2.dtb", &d, why, sizeof(why)), "%s", why);
	kernel_init_dt(&d.fdt, 5, "rails");
	for (int c = 0; c < 5; c++) {
		host_set_cpu_id(c);
		sched_init_cpu(c);
		sched_cpu_online(c);
	}
	host_set_cpu_id(0);
	KT_ASSERT_EQ(sched_topo.nr_cpus, 5);
	KT_ASSERT_EQ(pack_policy_current(), &policy_rails);
	for (int c = 0; c < 5; c++) {
		KT_ASSERT_EQ(sched_topo.pack_buddy[c], buddy[c]);
		KT_ASSERT_EQ(cpumask_low32(&sched_topo.llc[c]), c < 2 ? 0x3u : 0x1cu);
	}
	host_sleeper(&wakee, "wakee", 5);
	wakee.se.avg.runnable_avg_sum = wakee.se.avg.usage_avg_sum = 800;
	wakee.se.avg.runnable_avg_period = 40000;
	for (int c = 0; c < 5; c++)
		if (c != 1) {
			make_busy(c);
			cpu_rq(c)->avg.runnable_avg_sum = cpu_rq(c)->avg.usage_avg_sum = 40000;
			cpu_rq(c)->avg.runnable_avg_period = 40000;
		}
	KT_ASSERT_EQ(place(0), 1);	/* buddy 2 busy: cpu0's cluster's idle CPU, not the A7s */
}
