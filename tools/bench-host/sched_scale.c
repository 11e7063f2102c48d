/*
 * How the placement code scales with the number of CPUs, on the host: the
 * kernel's own objects (build/host/libkcore.a, CONFIG_NR_CPUS=1024) in
 * instructions counted by callgrind. tools/bench runs it as
 *   valgrind --tool=callgrind --collect-atstart=no build/host/bench/sched_scale
 * and reads one dump per measured region (CALLGRIND_DUMP_STATS_AT(name));
 * only the calls between CALLGRIND_TOGGLE_COLLECT pairs are counted, and the
 * "empty" region (the toggles around nothing) is the overhead to subtract.
 *
 * The machine, for N = 4 .. 1024 CPUs, built by hand as
 * tests/host/test_topology.c does: clusters of 4 CPUs (2 when N = 4), each
 * cluster its own power rail, packages of 16 CPUs when N > 16 (levels MC,
 * CLS, DIE; else MC, DIE); in each package the first half of the clusters
 * big (capacity 1024), the rest little (512).
 *
 * Regions:
 *   build n=N          topology_build(&policy_rails): domains, groups, rails,
 *                      every CPU's buddy (boot, and `pack <mode>`)
 *   buddy n=N          topology_pack_buddy() of one CPU (mean over all)
 *   buddy_select n=N   buddy_select() of a light sleeping task whose CPU's
 *                      buddy is idle: the test run at every wake-up
 *   wake_light n=N     wake_up() of that task: task_rq_lock, select_task_rq
 *                      (packing test -> the buddy), wake-list push, IPI
 *   select n=N         sched_select_task_rq() of that task alone: the
 *                      placement decision (packing test -> the buddy)
 *   wake_busy n=N      wake_up() of a task that is not light, every CPU busy:
 *                      the packing test says no, there is no idle CPU to
 *                      look for (the idle set is empty), it stays on prev
 *   select_busy n=N    sched_select_task_rq() of that task alone
 * buddy_select and wake_up need a live scheduler: sched_init(),
 * sched_init_cpu() and sched_cpu_online() on the host (the arch hooks below
 * are stubs: a fake clock, no IPIs, no timer, no power-down, no energy
 * meters), for every N up to 1024 (the scheduler's CPU sets have
 * CONFIG_NR_CPUS bits on the host). Between wake-ups, outside the counted
 * part, the task is put back to sleep on its CPU and the queues are
 * emptied.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <valgrind/callgrind.h>

#include "arch/cpu.h"
#include "arch/ipi.h"
#include "kernel/pack/buddy.h"
#include "kernel/sched/sched.h"
#include "kernel/sched/sched_internal.h"
#include "kernel/time/timer.h"
#include "kernel/pack/pack.h"
#include "kernel/sched/topology.h"

/* The arch hooks the live scheduler needs, stubbed (fake clock, no IPI): one TU per binary. */
#include "host_sched.h"

/* ------------------------------------------------------------ machine */

static struct topology topo;

#define REGION_BEGIN() CALLGRIND_ZERO_STATS
#define COUNT(stmt)                       \
	do {                              \
		CALLGRIND_TOGGLE_COLLECT; \
		stmt;                     \
		CALLGRIND_TOGGLE_COLLECT; \
	} while (0)

static void region_end(const char *what, int n, int calls, const char *note)
{
	char name[160];

	snprintf(name, sizeof(name), "%s n=%d calls=%d", what, n, calls);
	CALLGRIND_DUMP_STATS_AT(name);
	printf("region %s%s%s\n", name, note && *note ? " " : "", note ? note : "");
}

static volatile int sink;

static void empty_region(void)
{
	REGION_BEGIN();
	for (int i = 0; i < 64; i++)
		COUNT(sink++);
	region_end("empty", 0, 64, "");
}

static void bench_topology(int n)
{
	int calls = n < 64 ? 64 : n;

	host_make_topology(&topo, n);
	REGION_BEGIN();
	COUNT(topology_build(&topo, &policy_rails));
	region_end("build", n, 1, "");

	REGION_BEGIN();
	for (int i = 0; i < calls; i++) {
		int cpu = i % n;

		COUNT(sink += topology_pack_buddy(&topo, cpu));
	}
	{
		char note[64];

		snprintf(note, sizeof(note), "levels=%d buddy0=%d", topo.nr_levels[0], topo.pack_buddy[0]);
		region_end("buddy", n, calls, note);
	}
}

/* ------------------------------------------------------------ wake-ups */

static struct task sleeper, busy[TOPO_MAX_CPUS];

static void reset_sched(int n)
{
	sched_init(n);
	for (int c = 0; c < n; c++) {
		host_set_cpu_id(c);
		sched_init_cpu(c);
		sched_cpu_online(c);
	}
}

/* @sleeper asleep on @prev, with a light (or heavy) history. */
static void make_sleeper(int n, int prev, bool light)
{
	cpumask_t allowed = { { 0 } };

	memset(&sleeper, 0, sizeof(sleeper));
	sleeper.tid = 1;
	strcpy(sleeper.name, "sleeper");
	for (int c = 0; c < n; c++)
		cpumask_set(&allowed, c);
	task_set_cpus(&sleeper, &allowed);
	se_init(&sleeper.se, 0);
	sleeper.sched_class = sched_class_of_policy(SCHED_OTHER);
	pelt_init(&sleeper.se.avg, host_fake_now - 200000000ull);
	/* 100 ms running, then (light) 100 ms asleep. */
	pelt_update(&sleeper.se.avg, host_fake_now - 100000000ull, true, true);
	if (light)
		pelt_update(&sleeper.se.avg, host_fake_now, false, false);
	else
		pelt_update(&sleeper.se.avg, host_fake_now, true, true);
	sleeper.state = TASK_SLEEPING;
	sleeper.cpu = prev;
	sleeper.on_rq = false;
}

static void make_all_busy(int n)
{
	for (int c = 0; c < n; c++)
		host_run_busy(&busy[c], c);
}

/* Undo the wake-up: asleep on @prev again, queues as before. */
static void put_back(int n, int prev)
{
	int target = sleeper.cpu;

	if (sleeper.se.on_rq)
		cfs_dequeue(&cpu_rq(target)->cfs, &sleeper.se, DEQ_SLEEP);
	for (int c = 0; c < n; c++) {
		cpu_rq(c)->wake_list = NULL;
		cpu_rq(c)->need_resched = false;
	}
	sleeper.on_rq = false;
	sleeper.state = TASK_SLEEPING;
	sleeper.cpu = prev;
	sleeper.se.vruntime = 0;
	host_fake_now += 1000;
}

static void bench_wake(int n)
{
	int calls = 200, prev = 0, target = -1;
	int why = BUDDY_NO_BUDDY;
	char note[96];

	host_make_topology(&sched_topo, n);
	topology_build(&sched_topo, &policy_rails);

	/* Light task, idle machine: packed to prev's buddy. */
	reset_sched(n);
	host_set_cpu_id(prev);
	make_sleeper(n, prev, true);
	REGION_BEGIN();
	for (int i = 0; i < calls; i++)
		COUNT(why = buddy_select(&sleeper, prev, &target));
	snprintf(note, sizeof(note), "outcome=%s target=%d", buddy_reasons[why], target);
	region_end("buddy_select", n, calls, note);

	REGION_BEGIN();
	for (int i = 0; i < calls; i++)
		COUNT(target = sched_select_task_rq(&sleeper, prev, true));
	snprintf(note, sizeof(note), "target=%d", target);
	region_end("select", n, calls, note);

	REGION_BEGIN();
	for (int i = 0; i < calls; i++) {
		COUNT(wake_up(&sleeper));
		target = sleeper.cpu;
		put_back(n, prev);
	}
	snprintf(note, sizeof(note), "target=%d", target);
	region_end("wake_light", n, calls, note);

	/* Heavy task, every CPU busy: the idle search finds nothing, prev stays. */
	reset_sched(n);
	host_set_cpu_id(prev);
	make_all_busy(n);
	make_sleeper(n, prev, false);
	REGION_BEGIN();
	for (int i = 0; i < calls; i++) {
		COUNT(wake_up(&sleeper));
		target = sleeper.cpu;
		put_back(n, prev);
	}
	snprintf(note, sizeof(note), "target=%d", target);
	region_end("wake_busy", n, calls, note);

	REGION_BEGIN();
	for (int i = 0; i < calls; i++)
		COUNT(target = sched_select_task_rq(&sleeper, prev, true));
	snprintf(note, sizeof(note), "target=%d", target);
	region_end("select_busy", n, calls, note);
}

int main(int argc, char **argv)
{
	int max_n = argc > 1 ? atoi(argv[1]) : 1024;

	if (max_n < 4 || max_n > TOPO_MAX_CPUS) {
		fprintf(stderr, "usage: sched_scale [max_cpus 4..%d]\n", TOPO_MAX_CPUS);
		return 2;
	}
	empty_region();
	for (int n = 4; n <= max_n; n *= 2) {
		bench_topology(n);
		bench_wake(n);
	}
	return 0;
}
