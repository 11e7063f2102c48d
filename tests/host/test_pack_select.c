/*
 * The placement policies' wake-up decisions on TC2's DT (build/tc2/tc2.dtb:
 * A15 cpu0-1, A7 cpu2-4, one rail per cluster; pack=rails buddies
 * 2,2,2,3,4), each outcome forced by hand-set PELT sums (as of now, so no
 * decay moves them):
 * - buddy_select() (kernel/pack/buddy.c): packed, no_buddy, not_allowed,
 *   not_light (usage x 4 >= period, at the boundary), buddy_busy (usage <<
 *   nr_running > period, at the boundary, for 1 and 2 tasks), waiting (a
 *   task on its own buddy waiting > 3/8 of its runnable time; elsewhere the
 *   rule does not apply), and the counters `pack` prints;
 * - pack=energy's energy_select() (kernel/pack/energy.c): the fast path
 *   (idle prev on a powered rail shared with its buddy), the full model
 *   (a light task of an A15 goes to the A7 buddy), the latency guard (a
 *   task that waits too much is only placed on idle CPUs), affinity;
 *   capacity fitness (a task that does not fit its A7 leaves it, even for
 *   an idle prev), the overutilized tipping point (a CPU above 80%, or a
 *   queue at two ticks in a row, sets it at its tick; the energy choice
 *   steps aside until it clears), the misfit push asked for at the tick
 *   (to the first biggest idle CPU, never to an equal one), and a machine
 *   without a choice (vexpress-a9: one cluster) placing by the buddy rule;
 * - buddy_select()'s fitness for a buddy too small for a light task.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "ktest.h"
#include "host_boot.h"
#include "kernel/pack/buddy.h"
#include "kernel/pack/pack.h"
#include "kernel/sched/cpupri.h"
#include "kernel/sched/energy.h"
#include "kernel/sched/idle.h"
#include "kernel/sched/sched.h"
#include "kernel/sched/sched_internal.h"

#define NCPU 5
#define ALL 0x1fu
#define PERIOD 40000u

/* pack=energy's outcomes (kernel/pack/energy.c's enum, in `pack`'s order). */
enum { E_PACKED, E_PREV, E_IDLE, E_NONE, E_UNFIT, E_OVERUTIL, E_MISFIT, E_BUDDY_RULE };

static struct task p, busy[NCPU];
static struct dtb tc2;

static bool boot(const char *pack)
{
	return host_boot_dt(&tc2, "build/tc2/tc2.dtb", NCPU, pack, 50000000000ull);
}

/* @cpu runs @nr tasks, busy @usage of PERIOD. */
static void load(int cpu, unsigned int nr, uint32_t usage)
{
	host_run_busy(&busy[cpu], cpu);
	cpu_rq(cpu)->nr_running = nr;
	cpu_rq(cpu)->cfs.nr_running = nr;
	cpu_rq(cpu)->cfs.load_weight = (uint64_t)nr * NICE_0_WEIGHT;
	host_set_avg(&cpu_rq(cpu)->avg, usage, usage, PERIOD);
}

/* The waking task, last on @prev, allowed on @allowed, with these sums. */
static void waker(int prev, uint32_t allowed, uint32_t runnable, uint32_t usage)
{
	host_task(&p, 7, prev, allowed);
	host_set_avg(&p.se.avg, runnable, usage, PERIOD);
}

static int bsel(int prev, int *target)
{
	*target = -1;
	return buddy_select(&p, prev, target);
}

KT_CASE(buddy_packs_a_light_task_on_an_idle_buddy)
{
	int t;

	KT_ASSERT(boot("rails"));
	waker(0, ALL, 800, 800);
	KT_ASSERT_EQ(bsel(0, &t), BUDDY_PACKED);
	KT_ASSERT_EQ(t, 2);
	/* Through the policy, as a wake-up: counted under prev's "packed". */
	KT_ASSERT_EQ(sched_select_task_rq(&p, 0, true), 2);
	KT_ASSERT_EQ(cpu_rq(0)->pack_stats[BUDDY_PACKED], 1);
}

KT_CASE(no_buddy_when_packing_is_off)
{
	int t;

	KT_ASSERT(boot("off"));
	waker(0, ALL, 800, 800);
	KT_ASSERT_EQ(bsel(0, &t), BUDDY_NO_BUDDY);
	KT_ASSERT_EQ(t, -1);
}

KT_CASE(affinity_that_excludes_the_buddy)
{
	int t;

	KT_ASSERT(boot("rails"));
	waker(0, 0x3, 800, 800);
	KT_ASSERT_EQ(bsel(0, &t), BUDDY_NOT_ALLOWED);
	KT_ASSERT_EQ(t, -1);
	KT_ASSERT_EQ(sched_select_task_rq(&p, 0, true), 0);
	KT_ASSERT_EQ(cpu_rq(0)->pack_stats[BUDDY_NOT_ALLOWED], 1);
}

KT_CASE(light_means_under_a_quarter)
{
	int t;

	KT_ASSERT(boot("rails"));
	/* 9999 x 4 < 40000: light. */
	waker(0, ALL, 9999, 9999);
	KT_ASSERT_EQ(bsel(0, &t), BUDDY_PACKED);
	/* 10000 x 4 = 40000: not light, left to the default path. */
	waker(0, ALL, 10000, 10000);
	KT_ASSERT_EQ(bsel(0, &t), BUDDY_NOT_LIGHT);
	KT_ASSERT_EQ(t, -1);
	/* Light by usage however long it waited (the waiting rule is the buddy's own). */
	waker(0, ALL, 30000, 2000);
	KT_ASSERT_EQ(bsel(0, &t), BUDDY_PACKED);
}

KT_CASE(a_busy_buddy_is_usage_shifted_by_its_tasks_over_period)
{
	int t;

	KT_ASSERT(boot("rails"));
	waker(0, ALL, 800, 800);
	/* One task: 20000 << 1 = 40000, not above: still packed. */
	load(2, 1, 20000);
	KT_ASSERT_EQ(bsel(0, &t), BUDDY_PACKED);
	/* 20001 << 1 > 40000: busy. */
	load(2, 1, 20001);
	KT_ASSERT_EQ(bsel(0, &t), BUDDY_BUSY);
	KT_ASSERT_EQ(t, -1);
	/* Two tasks: 10000 << 2 = 40000 not above, 10001 << 2 is. */
	load(2, 2, 10000);
	KT_ASSERT_EQ(bsel(0, &t), BUDDY_PACKED);
	load(2, 2, 10001);
	KT_ASSERT_EQ(bsel(0, &t), BUDDY_BUSY);
	/* A busy buddy: the wake-up stays in prev's cluster (idle cpu0 itself). */
	KT_ASSERT_EQ(sched_select_task_rq(&p, 0, true), 0);
	KT_ASSERT_EQ(cpu_rq(0)->pack_stats[BUDDY_BUSY], 1);
}

KT_CASE(a_task_on_its_buddy_that_waits_too_much_is_not_kept)
{
	int t;

	KT_ASSERT(boot("rails"));
	/* On cpu2, its own buddy: waited 3000 of 8000 (x 8 = 24000 = 3 x 8000): not too much. */
	waker(2, ALL, 8000, 5000);
	KT_ASSERT_EQ(bsel(2, &t), BUDDY_PACKED);
	KT_ASSERT_EQ(t, 2);
	/* 3001 of 8000: too much. */
	waker(2, ALL, 8000, 4999);
	KT_ASSERT_EQ(bsel(2, &t), BUDDY_WAITING);
	KT_ASSERT_EQ(t, -1);
	KT_ASSERT(pack_waits_too_much(&p.se.avg));
	/* The same task last on cpu0 (buddy 2, not itself): the rule does not apply. */
	waker(0, ALL, 8000, 4999);
	KT_ASSERT_EQ(bsel(0, &t), BUDDY_PACKED);
	KT_ASSERT_EQ(t, 2);
	/*
	 * Nor for one close to the light line (9998 x 4 + 8 >= 40000: not
	 * "stays light", so its average is brought up to now and tested), which
	 * waits half its runnable time: still packed from cpu0, not from cpu2.
	 */
	waker(0, ALL, 20000, 9998);
	KT_ASSERT_EQ(bsel(0, &t), BUDDY_PACKED);
	waker(2, ALL, 20000, 9998);
	KT_ASSERT_EQ(bsel(2, &t), BUDDY_WAITING);
}

KT_CASE(energy_fast_path_keeps_an_idle_prev_sharing_its_buddys_rail)
{
	KT_ASSERT(boot("energy"));
	KT_ASSERT(energy_model()->present);
	/* cpu3 idle, its buddy 3 itself: kept, even for a task that is not light (nothing to sum). */
	waker(3, ALL, 30000, 30000);
	KT_ASSERT_EQ(sched_select_task_rq(&p, 3, true), 3);
	KT_ASSERT_EQ(cpu_rq(3)->pack_stats[1], 1);	/* energy_prev */
}

KT_CASE(energy_sends_a_light_a15_task_to_its_a7_buddy)
{
	KT_ASSERT(boot("energy"));
	/*
	 * cpu0 idle, its buddy cpu2 on the other rail: no fast path. The model
	 * (test_pack_energy.c's figures) prices a light task far lower on an A7
	 * (core 1024 against 6997 at full speed, for 1024/516 the time).
	 */
	waker(0, ALL, 800, 800);
	KT_ASSERT_EQ(sched_select_task_rq(&p, 0, true), 2);
	KT_ASSERT_EQ(cpu_rq(0)->pack_stats[0], 1);	/* packed */
	/*
	 * The buddy busy (cpu2, 10%: the A7 rail on anyway) beside idle cpu3,
	 * the A7 rail's least used idle CPU. Queued on cpu2 the task's run
	 * cannot overlap cpu2's own work (one task at a time); on cpu3 it may
	 * overlap cpu2's, which keeps the rail busy anyway: cpu3 costs less
	 * (tc2's core idle is 0), as Linux's EAS takes a domain's CPU with the
	 * most spare capacity.
	 */
	load(2, 1, PERIOD / 10);
	KT_ASSERT_EQ(sched_select_task_rq(&p, 0, true), 3);
	KT_ASSERT_EQ(cpu_rq(0)->pack_stats[2], 1);	/* energy_idle */
	/* cpu3 busier lately than cpu4 (both idle now): cpu4 is the rail's candidate. */
	host_set_avg(&cpu_rq(3)->avg, PERIOD / 10, PERIOD / 10, PERIOD);
	KT_ASSERT_EQ(sched_select_task_rq(&p, 0, true), 4);
	/*
	 * cpu3 and cpu4, idle now, were 60% busy lately; the buddy is 10%: its
	 * siblings keep the rail busy 84% of the time, cpu3's only 64%. The
	 * task's run on the buddy overlaps most: the buddy, as its own candidate.
	 */
	host_set_avg(&cpu_rq(3)->avg, PERIOD / 10 * 6, PERIOD / 10 * 6, PERIOD);
	host_set_avg(&cpu_rq(4)->avg, PERIOD / 10 * 6, PERIOD / 10 * 6, PERIOD);
	KT_ASSERT_EQ(sched_select_task_rq(&p, 0, true), 2);
	KT_ASSERT_EQ(cpu_rq(0)->pack_stats[0], 2);	/* packed */
}

KT_CASE(energy_latency_guard_places_a_waiting_task_only_on_idle_cpus)
{
	int first;

	KT_ASSERT(boot("energy"));
	/* The A7s but cpu4 busy and light, the A15s idle. */
	load(2, 1, 4000);
	load(3, 1, 4000);
	/*
	 * A light task of cpu2 that did not wait: idle cpu4, where its run may
	 * overlap cpu2's and cpu3's work, costs less than queueing on cpu2,
	 * where it cannot overlap cpu2's (its own share taken out).
	 */
	waker(2, ALL, 800, 800);
	KT_ASSERT_EQ(sched_select_task_rq(&p, 2, true), 4);
	/* Not allowed on cpu4: staying on busy cpu2 costs least (the A15 cluster is off). */
	waker(2, 0xf, 800, 800);
	KT_ASSERT_EQ(sched_select_task_rq(&p, 2, true), 2);
	/* The same task having waited 3/4 of its runnable time: an idle CPU, whichever costs least. */
	waker(2, 0xf, 3200, 800);
	KT_ASSERT(pack_waits_too_much(&p.se.avg));
	first = sched_select_task_rq(&p, 2, true);
	KT_ASSERT_MSG(first == 0 || first == 1, "a waiting task placed on busy cpu%d", first);
	KT_ASSERT_EQ(cpu_rq(2)->pack_stats[2], 2);	/* energy_idle: cpu4, then the guard's */
	/* With no idle CPU allowed: no candidate, the default path (energy_none). */
	waker(2, 0xc, 3200, 800);
	(void)sched_select_task_rq(&p, 2, true);
	KT_ASSERT_EQ(cpu_rq(2)->pack_stats[3], 1);	/* energy_none */
}

/*
 * A new task on TC2 (select_idlest_cpu(), Linux 3.7's rule by load per
 * unit of capacity), created on busy cpu0: the A15 group holds 1024 on
 * 2048 (512), the A7s nothing: cpu2. Then the A7s hold 1024 on 1548 (661):
 * the A15 group, its idle cpu1. Then A15s 2048 / 2048 (1024) against 661:
 * the A7s again, cpu3. Per CPU instead of per capacity the second would go
 * to the A7s (1024 / 3 CPUs = 341 against 512). Affinity narrows both the
 * groups' loads and the CPU chosen in the group.
 */
KT_CASE(new_tasks_go_where_load_per_capacity_is_lowest)
{
	KT_ASSERT(boot("off"));
	waker(0, ALL, 0, 0);
	load(0, 1, 0);
	KT_ASSERT_EQ(sched_select_task_rq(&p, 0, false), 2);
	load(2, 1, 0);
	KT_ASSERT_EQ(sched_select_task_rq(&p, 0, false), 1);
	load(1, 1, 0);
	KT_ASSERT_EQ(sched_select_task_rq(&p, 0, false), 3);
	/*
	 * Allowed on cpu1 and cpu2 only, with cpu0 running two tasks, cpu1
	 * idle, cpu2 one task: counting the allowed CPUs alone, the A15 group
	 * is idle (0) and the A7 group 1024 / 516: cpu1. Counting every CPU
	 * of the groups, the A15s would hold 2048 / 2048 against the A7s'
	 * 1024 / 1548 and the task would go to busy cpu2.
	 */
	KT_ASSERT(boot("off"));
	waker(0, 0x6, 0, 0);
	load(0, 2, 0);
	load(2, 1, 0);
	KT_ASSERT_EQ(sched_select_task_rq(&p, 0, false), 1);
}

/*
 * A waking SCHED_FIFO 50 task (kernel/sched/rt.c's rt_select_rq(), Linux's
 * select_task_rq_rt): it stays on prev unless prev runs RT priority 50 or
 * higher; then the lowest-priority CPU near prev, an idle one first (cpu2's
 * cluster: cpu3). No placement policy takes part (packing is the fair
 * class's). With every other CPU at a higher RT level, prev after all.
 */
KT_CASE(a_waking_rt_task_leaves_a_prev_running_its_priority_or_higher)
{
	KT_ASSERT(boot("rails"));
	waker(2, ALL, 800, 800);
	p.policy = SCHED_FIFO;
	p.rt_priority = p.prio = 50;
	p.sched_class = sched_class_of_policy(SCHED_FIFO);
	load(2, 1, 0);
	cpu_rq(2)->rt.highest = 40;
	KT_ASSERT_EQ(sched_select_task_rq(&p, 2, true), 2);
	cpu_rq(2)->rt.highest = 50;
	KT_ASSERT_EQ(sched_select_task_rq(&p, 2, true), 3);
	KT_ASSERT_EQ(cpu_rq(2)->pack_stats[BUDDY_PACKED], 0);
	cpupri_set(2, 50);
	for (int c = 0; c < NCPU; c++)
		if (c != 2) {
			load(c, 1, 0);
			cpu_rq(c)->rt.highest = 60;
			cpupri_set(c, 60);
		}
	KT_ASSERT_EQ(sched_select_task_rq(&p, 2, true), 2);
	/* One of them at 10 (below 50): found through cpupri, though busy. */
	cpu_rq(4)->rt.highest = 10;
	cpupri_set(4, 10);
	KT_ASSERT_EQ(sched_select_task_rq(&p, 2, true), 4);
}

/* A tick of @cpu at which the policy looks (balance_tick() and fair_tick() call it). */
static void policy_tick(int cpu)
{
	cpu_rq(cpu)->ticks++;
	cpu_rq(cpu)->policy_tick(cpu_rq(cpu));
}

KT_CASE(energy_a_task_that_does_not_fit_its_a7_leaves_it)
{
	int t;

	KT_ASSERT(boot("energy"));
	/* 75% of idle cpu3 fits (x 1.25 <= 100%): the fast path keeps it. */
	waker(3, ALL, 30000, 30000);
	KT_ASSERT_EQ(sched_select_task_rq(&p, 3, true), 3);
	/* 85% does not: an A15, the only CPUs it fits, for the reason "prev_unfit". */
	waker(3, ALL, 34000, 34000);
	t = sched_select_task_rq(&p, 3, true);
	KT_ASSERT_MSG(t == 0 || t == 1, "an unfit task placed on cpu%d", t);
	KT_ASSERT_EQ(cpu_rq(3)->pack_stats[E_UNFIT], 1);
	/* Kept off the A15s by affinity: it fits nowhere, the default path decides. */
	waker(3, 0x1c, 34000, 34000);
	(void)sched_select_task_rq(&p, 3, true);
	KT_ASSERT_EQ(cpu_rq(3)->pack_stats[E_NONE], 1);
}

KT_CASE(energy_steps_aside_while_a_cpu_is_overutilized)
{
	int t;

	KT_ASSERT(boot("energy"));
	/* cpu3 busy 90% at its tick: overutilized; a light A15 task is left to the default path. */
	load(3, 1, PERIOD / 10 * 9);
	policy_tick(3);
	waker(0, ALL, 800, 800);
	(void)sched_select_task_rq(&p, 0, true);
	KT_ASSERT_EQ(cpu_rq(0)->pack_stats[E_OVERUTIL], 1);
	KT_ASSERT(sched_topo.policy->may_kick_ilb(cpu_rq(2)));	/* the balancer may wake idle CPUs */
	/* Back at 70%: still overutilized for ~5 ms after the look that found it so. */
	load(3, 1, PERIOD / 10 * 7);
	policy_tick(3);
	(void)sched_select_task_rq(&p, 0, true);
	KT_ASSERT_EQ(cpu_rq(0)->pack_stats[E_OVERUTIL], 2);
	host_fake_now += 4ull << 20;	/* 4 units of 2^20 ns: within the hold of 5 */
	(void)sched_select_task_rq(&p, 0, true);
	KT_ASSERT_EQ(cpu_rq(0)->pack_stats[E_OVERUTIL], 3);
	/* Past the hold: the energy choice again (the A7 buddy). */
	host_fake_now += 2ull << 20;
	waker(0, ALL, 800, 800);
	load(3, 1, PERIOD / 10 * 7);
	t = sched_select_task_rq(&p, 0, true);
	KT_ASSERT_EQ(t, 2);
	KT_ASSERT_EQ(cpu_rq(0)->pack_stats[E_PACKED], 1);
	/* A queue at one tick is a collision; at two ticks in a row, overutilized. */
	load(3, 2, PERIOD / 10 * 5);
	policy_tick(3);
	KT_ASSERT_EQ(sched_select_task_rq(&p, 0, true), 2);
	policy_tick(3);
	(void)sched_select_task_rq(&p, 0, true);
	KT_ASSERT_EQ(cpu_rq(0)->pack_stats[E_OVERUTIL], 4);
	/* Past the hold, an overutilized CPU that went idle no longer counts (its bit waits for its next tick). */
	host_fake_now += 6ull << 20;
	waker(0, ALL, 800, 800);
	sched_set_idle_hint(3, true);
	KT_ASSERT_EQ(sched_select_task_rq(&p, 0, true), 2);
	sched_set_idle_hint(3, false);
	/* Overutilized again (the queue at a second tick in a row); a new reign (`pack energy`) forgets it. */
	policy_tick(3);
	policy_tick(3);
	(void)sched_select_task_rq(&p, 0, true);
	KT_ASSERT_EQ(cpu_rq(0)->pack_stats[E_OVERUTIL], 5);
	KT_ASSERT_EQ(pack_set_policy(sched_topo.policy), 0);
	KT_ASSERT_EQ(sched_select_task_rq(&p, 0, true), 2);
}

KT_CASE(misfit_running_task_is_pushed_to_the_biggest_idle_cpu)
{
	cpumask_t all = cpumask_from_u32(ALL);

	KT_ASSERT(boot("energy"));
	/* cpu3 runs a task busy 90% of the time, allowed anywhere: pushed to cpu0 (first A15) at its switch. */
	load(3, 1, PERIOD / 10 * 9);
	task_set_cpus(&busy[3], &all);
	host_set_avg(&busy[3].se.avg, PERIOD / 10 * 9, PERIOD / 10 * 9, PERIOD);
	cpu_rq(3)->need_resched = false;
	policy_tick(3);
	KT_ASSERT(cpu_rq(3)->misfit_push == &busy[3]);
	KT_ASSERT_EQ(cpu_rq(3)->misfit_dst, 0);
	KT_ASSERT(cpu_rq(3)->need_resched);
	KT_ASSERT_EQ(cpu_rq(3)->pack_stats[E_MISFIT], 1);
	/* At 70% it fits: no push (and the tick withdraws the last one). */
	host_set_avg(&busy[3].se.avg, PERIOD / 10 * 7, PERIOD / 10 * 7, PERIOD);
	policy_tick(3);
	KT_ASSERT(cpu_rq(3)->misfit_push == NULL);
	/* cpu0 busy, so cpu1 is the one; an A15 task at 90% has no bigger CPU (cpu1 is only equal). */
	load(0, 1, PERIOD / 10 * 9);
	task_set_cpus(&busy[0], &all);
	host_set_avg(&busy[0].se.avg, PERIOD / 10 * 9, PERIOD / 10 * 9, PERIOD);
	host_set_avg(&busy[3].se.avg, PERIOD / 10 * 9, PERIOD / 10 * 9, PERIOD);
	policy_tick(3);
	KT_ASSERT_EQ(cpu_rq(3)->misfit_dst, 1);
	policy_tick(0);
	KT_ASSERT(cpu_rq(0)->misfit_push == NULL);
}

KT_CASE(energy_without_a_choice_places_by_the_buddy_rule)
{
	static struct dtb a9;

	KT_ASSERT(boot("energy"));
	KT_ASSERT(energy_model()->why_flat == NULL);
	KT_ASSERT(sched_topo.policy->why_not() == NULL);
	/* vexpress-a9: one cluster of four equal CPUs on one rail. The buddy rule: no buddy. */
	KT_ASSERT(host_boot_dt(&a9, "build/vexpress-a9/vexpress-a9.dtb", 4, "energy", 50000000000ull));
	KT_ASSERT(energy_model()->why_flat != NULL);
	KT_ASSERT(strstr(sched_topo.policy->why_not(), "one cluster") != NULL);
	waker(1, 0xf, 800, 800);
	KT_ASSERT_EQ(sched_select_task_rq(&p, 1, true), 0);	/* the default path: the idle waker's CPU */
	KT_ASSERT_EQ(cpu_rq(1)->pack_stats[E_BUDDY_RULE], 1);
}

KT_CASE(a_buddy_too_small_for_a_light_task_gets_only_those_that_fit)
{
	int t;

	KT_ASSERT(boot("rails"));
	KT_ASSERT(!sched_topo.pack_buddy_check_fit[0]);	/* TC2: any light task fits an A7 */
	/* An A7 of capacity 300: 24% of an A15 is 307 with headroom, more than 300; 20% (256) fits. */
	sched_topo.cpu[2].capacity = 300;
	KT_ASSERT_EQ(pack_set_policy(&policy_rails), 0);
	KT_ASSERT(sched_topo.pack_buddy_check_fit[0]);
	waker(0, ALL, PERIOD / 100 * 24, PERIOD / 100 * 24);
	KT_ASSERT_EQ(bsel(0, &t), BUDDY_NOT_LIGHT);
	waker(0, ALL, PERIOD / 100 * 20, PERIOD / 100 * 20);
	KT_ASSERT_EQ(bsel(0, &t), BUDDY_PACKED);
	KT_ASSERT_EQ(t, 2);
}
