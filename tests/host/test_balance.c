/*
 * The load balancer (kernel/sched/balance.c) on the live host scheduler,
 * booted from TC2's DT (build/tc2/tc2.dtb: A15 cpu0-1 capacity 1024, A7
 * cpu2-4 capacity 516; domains MC = cluster, DIE = both clusters), with
 * tasks really queued on the run queues (woken on their CPU) so that the
 * balancer's pulls move them. Every expected move is derived by hand in the
 * comments from the rules of balance.c:
 * - a group's load per capacity unit (x 1024) picks the busiest group, the
 *   imbalance is what brings it down to the average (or us up to it), and a
 *   task moves only if the two CPUs' capacity-scaled loads get strictly
 *   closer (move_improves);
 * - newly idle CPUs try each level once; periodic balancing runs each level
 *   every span-weight ms, 8 times less often on a busy CPU;
 * - a busy CPU with waiting tasks kicks one tickless idle CPU (at most once
 *   per 4 ms), the idle CPU closest to its pack buddy, and that CPU balances
 *   for every tickless one;
 * - the run queues' PELT averages follow the moves (a migration accounts the
 *   source's time as runnable, not running).
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "ktest.h"
#include "host_boot.h"
#include "kernel/pack/pack.h"
#include "kernel/sched/sched.h"
#include "kernel/sched/sched_internal.h"

#define NCPU 5
#define NT 12
#define MS 1000000ull

static struct task tk[NT], fake_curr[NCPU];
static struct dtb tc2;
/*
 * Each boot starts 100 s after the last one (T(ms): that many ms after the
 * boot): the kick's rate limit lives across boots, like the kernel's.
 */
static uint64_t t0;
#define T(ms) (t0 + (uint64_t)(ms) * MS)

/* TC2 booted with @pack, every CPU online and idle, the clock at T(0). */
static bool boot_tc2(const char *pack)
{
	t0 += 100000 * MS;
	return host_boot_dt(&tc2, "build/tc2/tc2.dtb", NCPU, pack, t0);
}

/* Task @i, runnable and queued on @cpu (woken there), then free to run anywhere. */
static struct task *queue_on(int i, int cpu)
{
	struct task *t = &tk[i];
	cpumask_t all = cpumask_from_u32((1u << NCPU) - 1);

	host_task(t, 200 + (uint32_t)i, cpu, 1u << cpu);
	host_set_cpu_id(cpu);
	wake_up(t);
	host_set_cpu_id(0);
	task_set_cpus(t, &all);
	return t;
}

/* @cpu runs a task of its own (not in the tree: what the balancer never moves). */
static void run_busy(int cpu)
{
	host_run_busy(&fake_curr[cpu], cpu);
}

static unsigned int queued(int cpu)
{
	return cpu_rq(cpu)->cfs.nr_running;
}

static int newidle(int cpu)
{
	int n;

	host_set_cpu_id(cpu);
	n = balance_newidle(cpu_rq(cpu));
	host_set_cpu_id(0);
	return n;
}

static void tick(int cpu, uint64_t now)
{
	host_fake_now = now;
	host_set_cpu_id(cpu);
	balance_tick(cpu_rq(cpu), now);
	host_set_cpu_id(0);
}

KT_CASE(newidle_pulls_one_of_three_in_its_cluster)
{
	KT_ASSERT(boot_tc2("off"));
	for (int i = 0; i < 3; i++)
		queue_on(i, 0);
	KT_ASSERT_EQ(queued(0), 3);
	/*
	 * MC of cpu1: groups {0} 3072/1024 and {1} 0; average 1536, imbalance
	 * 1536. The first task brings 3072:0 to 2048:1024 (closer); a second
	 * would give 1024:2048 (no closer): one task moves.
	 */
	KT_ASSERT_EQ(newidle(1), 1);
	KT_ASSERT_EQ(queued(0), 2);
	KT_ASSERT_EQ(queued(1), 1);
	KT_ASSERT_EQ(cpu_rq(1)->nr_balance_pulls[0], 1);
	KT_ASSERT_EQ(cpu_rq(1)->cfs.load_weight, NICE_0_WEIGHT);
	KT_ASSERT(!cpumask_test(&sched_overloaded, 1));
	/* Pulled: the first queued, now on cpu1. */
	KT_ASSERT_EQ(tk[0].cpu + tk[1].cpu + tk[2].cpu, 1);
}

KT_CASE(a_pair_one_move_apart_stays)
{
	KT_ASSERT(boot_tc2("off"));
	queue_on(0, 0);
	queue_on(1, 0);
	queue_on(2, 1);
	/* 2048:1024 would become 1024:2048, as far apart: nothing moves. */
	KT_ASSERT_EQ(newidle(1), 0);
	KT_ASSERT_EQ(queued(0), 2);
	KT_ASSERT_EQ(queued(1), 1);
}

KT_CASE(an_a15_pulls_an_a7s_second_task_by_capacity)
{
	KT_ASSERT(boot_tc2("off"));
	run_busy(0);
	run_busy(1);
	queue_on(0, 2);
	queue_on(1, 2);
	/*
	 * DIE of cpu0: A15s 2048 on 2048 (1024 per unit), A7s 2048 on 1548
	 * (1354); average 4096 x 1024 / 3596 = 1166, so the A7s are busiest and
	 * cpu2 (two tasks) the source. Scaled by capacity, 2048 on an A7 is 4064
	 * against cpu0's 1024; after one move, 2032 against 2048: much closer,
	 * so cpu0 takes it (per unit of capacity the tasks counted as equals
	 * would not move: 1024 apart before and after).
	 */
	tick(0, T(0));
	KT_ASSERT_EQ(queued(2), 1);
	KT_ASSERT_EQ(cpu_rq(0)->cfs.load_weight, 2 * NICE_0_WEIGHT);
	KT_ASSERT_EQ(cpu_rq(0)->nr_balance_pulls[1], 1);
}

KT_CASE(an_a7_leaves_an_a15s_second_task_alone)
{
	KT_ASSERT(boot_tc2("off"));
	run_busy(0);
	queue_on(0, 0);
	run_busy(2);
	/*
	 * DIE of cpu2: the A15s hold 2048 on 2048 (1024), the A7s 1024 on 1548
	 * (677): the A15s are busiest. But cpu0's 2048 against cpu2's 2032
	 * (1024 scaled to 516) would become 1024 against 4064: worse, no move.
	 */
	tick(2, T(0));
	KT_ASSERT_EQ(queued(0), 2);
	KT_ASSERT_EQ(cpu_rq(2)->cfs.load_weight, NICE_0_WEIGHT);
	/* An idle A7 does take it: 2048 : 0 becomes 1024 : 2032. */
	KT_ASSERT_EQ(newidle(3), 1);
	KT_ASSERT_EQ(queued(0), 1);
	KT_ASSERT_EQ(queued(3), 1);
}

KT_CASE(an_idle_a15_pulls_up_to_the_groups_imbalance)
{
	KT_ASSERT(boot_tc2("off"));
	for (int i = 0; i < 4; i++)
		queue_on(i, 2);
	/*
	 * Four tasks on cpu2. cpu0's MC has nothing to pull; at DIE the A7s
	 * hold 4096 on 1548 (2709 per unit), the average is 4096 x 1024 / 3596
	 * = 1166: imbalance (2709 - 1166) x 1548 / 1024 = 2332, and ours, 1166
	 * x 2048 / 1024 = 2332 (the smaller before the division). Moves while
	 * under it, each bringing the capacity-scaled loads closer: 8128:0 ->
	 * 6096:1024 -> 4064:2048 -> 2032:3072 (1040 apart, < 2016); then 3072
	 * moved >= 2332 stops it: three tasks move (MC balancing then spreads
	 * them over the A15s).
	 */
	KT_ASSERT_EQ(newidle(0), 3);
	KT_ASSERT_EQ(queued(0), 3);
	KT_ASSERT_EQ(queued(2), 1);
	/* cpu1, newly idle, takes one of cpu0's three (its MC, level 0). */
	KT_ASSERT_EQ(newidle(1), 1);
	KT_ASSERT_EQ(cpu_rq(1)->nr_balance_pulls[0], 1);
	KT_ASSERT_EQ(queued(0), 2);
}

KT_CASE(a_pull_leaves_room_for_the_other_idle_cpus)
{
	KT_ASSERT(boot_tc2("off"));
	for (int i = 0; i < 6; i++)
		queue_on(i, 2);
	/*
	 * Six tasks on cpu2, cpu3 newly idle, cpu4 idle too. MC of the A7s
	 * (three groups of 516): average 6144 x 1024 / 1548 = 4064. cpu2's
	 * excess is (12192 - 4064) x 516 / 1024 = 4096, but bringing cpu3 up to
	 * the average takes only 4064 x 516 / 1024 = 2048: two tasks move (a
	 * third would still bring 4096:2048 closer, 3072:3072, but it is
	 * cpu4's share). cpu4 then takes its two (excess and room both
	 * (8128 - 4064) x 516 / 1024 = 2048): two each.
	 */
	KT_ASSERT_EQ(newidle(3), 2);
	KT_ASSERT_EQ(queued(2), 4);
	KT_ASSERT_EQ(newidle(4), 2);
	KT_ASSERT_EQ(queued(2), 2);
	KT_ASSERT_EQ(queued(3), 2);
}

KT_CASE(periodic_intervals_per_level_and_busy_factor)
{
	KT_ASSERT(boot_tc2("off"));
	/* Idle cpu0: MC (2 CPUs) every 2 ms, DIE (5 CPUs) every 5 ms. */
	tick(0, T(0));
	KT_ASSERT_EQ(cpu_rq(0)->next_balance_ns[0], T(2));
	KT_ASSERT_EQ(cpu_rq(0)->next_balance_ns[1], T(5));
	KT_ASSERT_EQ(cpu_rq(0)->next_balance_any_ns, T(2));
	/* Not due: nothing moves on. */
	tick(0, T(1));
	KT_ASSERT_EQ(cpu_rq(0)->next_balance_ns[0], T(2));
	/* Due at 1002: MC only. */
	tick(0, T(2));
	KT_ASSERT_EQ(cpu_rq(0)->next_balance_ns[0], T(4));
	KT_ASSERT_EQ(cpu_rq(0)->next_balance_ns[1], T(5));
	/* A busy A7 (MC of 3 CPUs): 8 times less often, 24 and 40 ms. */
	run_busy(3);
	tick(3, T(10));
	KT_ASSERT_EQ(cpu_rq(3)->next_balance_ns[0], T(34));
	KT_ASSERT_EQ(cpu_rq(3)->next_balance_ns[1], T(50));
	KT_ASSERT_EQ(cpu_rq(3)->next_balance_any_ns, T(34));
}

KT_CASE(the_idle_balancer_is_the_idle_cpu_nearest_the_buddy)
{
	KT_ASSERT(boot_tc2("rails"));	/* buddies 2,2,2,3,4 */
	KT_ASSERT_EQ(sched_topo.pack_buddy[0], 2);
	nohz_enter_idle(1);
	nohz_enter_idle(4);
	/* cpu0's buddy 2 is not idle: the idle CPU of its cluster, not cpu1 (the first idle). */
	KT_ASSERT_EQ(find_new_ilb(0), 4);
	nohz_enter_idle(3);
	KT_ASSERT_EQ(find_new_ilb(0), 3);
	nohz_enter_idle(2);
	KT_ASSERT_EQ(find_new_ilb(0), 2);
	/* No buddy (pack=off): the first idle CPU. */
	KT_ASSERT(boot_tc2("off"));
	nohz_enter_idle(4);
	nohz_enter_idle(1);
	KT_ASSERT_EQ(find_new_ilb(0), 1);
	nohz_exit_idle(1);
	KT_ASSERT_EQ(find_new_ilb(0), 4);
	nohz_exit_idle(4);
	KT_ASSERT_EQ(find_new_ilb(0), -1);
}

KT_CASE(a_cpu_with_waiting_tasks_kicks_once_per_4ms)
{
	KT_ASSERT(boot_tc2("rails"));
	run_busy(0);
	queue_on(0, 0);
	nohz_enter_idle(1);
	nohz_enter_idle(3);
	tick(0, T(1000));
	KT_ASSERT(cpu_rq(3)->nohz_kick);	/* buddy 2 ticks: the tickless CPU of its cluster, not cpu1 */
	KT_ASSERT(!cpu_rq(1)->nohz_kick);
	cpu_rq(3)->nohz_kick = false;
	tick(0, T(1003));
	KT_ASSERT(!cpu_rq(3)->nohz_kick);	/* 3 ms later: not again */
	tick(0, T(1004));
	KT_ASSERT(cpu_rq(3)->nohz_kick);
	cpu_rq(3)->nohz_kick = false;
	/* One task only (none waiting): no kick. */
	KT_ASSERT(boot_tc2("rails"));
	run_busy(0);
	nohz_enter_idle(3);
	tick(0, T(2000));
	KT_ASSERT(!cpu_rq(3)->nohz_kick);
}

KT_CASE(pack_energy_kicks_only_an_overutilized_cpu)
{
	KT_ASSERT(boot_tc2("energy"));
	run_busy(0);
	queue_on(0, 0);
	nohz_enter_idle(3);
	/* Busy exactly 80% of its recent time: its tasks fit, no idle CPU is woken. */
	host_fake_now = T(1000);
	host_set_avg(&cpu_rq(0)->avg, 40000, 32000, 40000);
	tick(0, T(1000));
	KT_ASSERT(!cpu_rq(3)->nohz_kick);
	/* One unit more: over the 80% line, kicked. */
	host_fake_now = T(1010);
	host_set_avg(&cpu_rq(0)->avg, 40000, 32001, 40000);
	tick(0, T(1010));
	KT_ASSERT(cpu_rq(3)->nohz_kick);
}

KT_CASE(the_kicked_cpu_balances_for_every_tickless_one)
{
	KT_ASSERT(boot_tc2("off"));
	run_busy(2);	/* runs a task of its own, 4 waiting behind it */
	for (int i = 0; i < 4; i++)
		queue_on(i, 2);
	nohz_enter_idle(4);
	/* cpu1 is idle but ticks (not in the tickless set): it balances for itself. */
	host_set_cpu_id(3);
	balance_nohz_kicked(cpu_rq(3));
	host_set_cpu_id(0);
	KT_ASSERT_EQ(cpu_rq(3)->nr_ilb_runs, 1);
	KT_ASSERT(queued(4) >= 1);	/* tickless cpu4, balanced for by cpu3 */
	KT_ASSERT(queued(3) >= 1);	/* and cpu3 itself */
	KT_ASSERT_EQ(queued(1), 0);
	KT_ASSERT_EQ(queued(0), 0);
}

/*
 * The run queues' PELT on a wake-up and a migration, against the same
 * history written by hand with pelt_update() (tested on its own in
 * test_pelt.c): cpu2 idle from time 0 to the wake-ups at T(100), then
 * runnable but not running (its tasks wait: curr is idle here) until its
 * tick at T(500); cpu0 idle until its pull at T(300), then
 * runnable. The task accounts its 200 ms of waiting as runnable only.
 */
KT_CASE(run_queue_averages_follow_a_wake_up_and_a_migration)
{
	struct sched_avg ref2, ref0, ref_t;
	struct task *t;

	KT_ASSERT(boot_tc2("off"));
	pelt_init(&ref2, 0);	/* the run queues' averages start at boot, time 0 (sched_init) */
	pelt_init(&ref0, 0);
	host_fake_now = T(100);
	pelt_init(&ref_t, T(100));
	t = queue_on(0, 2);
	queue_on(1, 2);
	pelt_update(&ref2, T(100), false, false);
	KT_ASSERT_EQ(cpu_rq(2)->avg.last_update_ns, ref2.last_update_ns);
	KT_ASSERT(cpu_rq(2)->avg_runnable && !cpu_rq(2)->avg_running);
	host_fake_now = T(300);
	KT_ASSERT_EQ(newidle(0), 1);
	KT_ASSERT_EQ(t->cpu, 0);
	/* cpu2 still has a task: its state did not change, no update (the next one accounts 200 ms runnable). */
	KT_ASSERT_EQ(cpu_rq(2)->avg.last_update_ns, ref2.last_update_ns);
	/* cpu0: idle until the task arrived. */
	pelt_update(&ref0, T(300), false, false);
	KT_ASSERT_EQ(cpu_rq(0)->avg.runnable_avg_sum, ref0.runnable_avg_sum);
	KT_ASSERT_EQ(cpu_rq(0)->avg.runnable_avg_period, ref0.runnable_avg_period);
	KT_ASSERT_EQ(cpu_rq(0)->avg.last_update_ns, ref0.last_update_ns);
	KT_ASSERT(cpu_rq(0)->avg_runnable && !cpu_rq(0)->avg_running);
	/* The task waited 200 ms: runnable, not running. */
	pelt_update(&ref_t, T(300), true, false);
	KT_ASSERT_EQ(t->se.avg.runnable_avg_sum, ref_t.runnable_avg_sum);
	KT_ASSERT_EQ(t->se.avg.usage_avg_sum, 0);
	KT_ASSERT(t->se.avg.runnable_avg_sum > 0);
	/* cpu2's tick at T(500) accounts its 400 ms of waiting tasks: runnable, never running. */
	host_fake_now = T(500);
	host_set_cpu_id(2);
	sched_tick();
	host_set_cpu_id(0);
	pelt_update(&ref2, T(500), true, false);
	KT_ASSERT_EQ(cpu_rq(2)->avg.runnable_avg_sum, ref2.runnable_avg_sum);
	KT_ASSERT_EQ(cpu_rq(2)->avg.runnable_avg_period, ref2.runnable_avg_period);
	KT_ASSERT_EQ(cpu_rq(2)->avg.usage_avg_sum, 0);
	KT_ASSERT(cpu_rq(2)->avg.runnable_avg_sum > ref2.runnable_avg_period / 2);
}

