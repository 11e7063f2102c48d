/*
 * The idle tick's rules (kernel/sched/core.c, declared in
 * kernel/sched/sched_internal.h), on the live scheduler booted from TC2's DT
 * (5 CPUs, HZ 1000: period P = 1 ms, CPU c's skew c x P / 10):
 * - going idle keeps the tick when another timer is due before it (that
 *   timer wakes the CPU first), and stops it otherwise, the CPU joining the
 *   tickless set;
 * - a restarted tick falls on the CPU's own skewed grid, k x P + skew, the
 *   first slot after now, whichever way the slot is found (a short stop, a
 *   restart before the stopped slot, a long stop, the first start);
 * - a tick that ran late is held back by as long as it was late.
 * Every expected slot comes from grid_after() below, a brute-force walk of
 * the grid, not from the kernel's arithmetic.
 * Run from the repository root (tests/run.py does): it reads
 * build/tc2/tc2.dtb (`make boards`).
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "ktest.h"
#include "host_boot.h"
#include "kernel/sched/sched.h"
#include "kernel/sched/sched_internal.h"
#include "kernel/time/timer.h"

#define NCPU 5
#define US 1000ull
#define P 1000000ull		/* the tick period at HZ 1000 */
#define SKEW(c) ((uint64_t)(c) * P / (2 * NCPU))

static struct dtb tc2;
static uint64_t t0;

/* TC2 booted at a fresh time (each boot 100 s after the last), clock at t0. */
static bool boot(void)
{
	t0 += 100000 * P;
	return host_boot_dt(&tc2, "build/tc2/tc2.dtb", NCPU, "off", t0);
}

/* The first slot of CPU @cpu's grid strictly after @after, by walking it. */
static uint64_t grid_after(int cpu, uint64_t after)
{
	uint64_t k = after / P > 2 ? after / P - 2 : 0;

	while (k * P + SKEW(cpu) <= after)
		k++;
	return k * P + SKEW(cpu);
}

static void on_cpu(int cpu, uint64_t now)
{
	host_set_cpu_id(cpu);
	host_fake_now = now;
}

static bool tickless(int cpu)
{
	return cpumask_test(&nohz_idle_cpus, cpu);
}

static void nop_fn(struct timer *t)
{
	(void)t;
}

KT_CASE(the_boot_leaves_every_cpu_with_its_tick_stopped_and_its_own_skew)
{
	KT_ASSERT(boot());
	for (int c = 0; c < NCPU; c++) {
		KT_ASSERT(cpu_rq(c)->tick_stopped);
		KT_ASSERT_EQ(cpu_rq(c)->tick_skew_ns, SKEW(c));
		KT_ASSERT_EQ(timers_next_expiry(c), TIMER_NEVER);
	}
}

/*
 * A CPU that no task has run on since it came online is tickless idle: a
 * busy CPU may kick it to balance (else it would stay idle beside a CPU
 * running two tasks until something woke it).
 */
KT_CASE(a_cpu_never_woken_since_boot_is_tickless)
{
	t0 += 100000 * P;
	KT_ASSERT(host_boot_dt_tickless(&tc2, "build/tc2/tc2.dtb", NCPU, "off", t0));
	for (int c = 0; c < NCPU; c++)
		KT_ASSERT_MSG(tickless(c), "cpu%d", c);
	/* Its first task restarts the tick: no longer tickless. */
	on_cpu(3, t0 + 10 * P);
	tick_start(cpu_rq(3), host_fake_now);
	KT_ASSERT(!tickless(3));
	host_set_cpu_id(0);
}

KT_CASE(a_started_tick_falls_on_its_cpus_grid)
{
	KT_ASSERT(boot());
	for (int c = 0; c < NCPU; c++) {
		/* Now at an odd offset: 123.456 us past a ms. */
		uint64_t now = t0 + 7 * P + 123456;

		on_cpu(c, now);
		tick_start(cpu_rq(c), now);
		KT_ASSERT(!cpu_rq(c)->tick_stopped);
		KT_ASSERT(!tickless(c));
		KT_ASSERT_EQ(timers_next_expiry(c), grid_after(c, now));
	}
	/* Now exactly on cpu3's slot: the next one, never now itself. */
	on_cpu(3, grid_after(3, t0 + 20 * P));
	KT_ASSERT_EQ(tick_slot_after(cpu_rq(3), host_fake_now, TIMER_NEVER), host_fake_now + P);
	host_set_cpu_id(0);
}

KT_CASE(going_idle_keeps_the_tick_when_another_timer_comes_first)
{
	struct timer early, late;
	uint64_t now, slot;

	KT_ASSERT(boot());
	now = t0 + 3 * P + 500 * US;
	on_cpu(2, now);
	tick_start(cpu_rq(2), now);
	slot = grid_after(2, now);
	KT_ASSERT_EQ(timers_next_expiry(2), slot);

	/* A timer 100 us before the tick: it wakes the CPU first; the tick stays. */
	timer_setup(&early, nop_fn, NULL);
	timer_arm(&early, slot - 100 * US);
	KT_ASSERT_EQ(tick_stop_idle(cpu_rq(2)), slot - 100 * US);
	KT_ASSERT(!cpu_rq(2)->tick_stopped);
	KT_ASSERT(!tickless(2));
	timer_cancel(&early);
	KT_ASSERT_EQ(timers_next_expiry(2), slot);	/* the tick is still armed */

	/* A timer due with the tick or after it: the tick stops, the CPU is tickless. */
	timer_setup(&late, nop_fn, NULL);
	timer_arm(&late, slot);
	KT_ASSERT_EQ(tick_stop_idle(cpu_rq(2)), slot);	/* the other timer, not the tick */
	KT_ASSERT(cpu_rq(2)->tick_stopped);
	KT_ASSERT(tickless(2));
	timer_cancel(&late);
	KT_ASSERT_EQ(timers_next_expiry(2), TIMER_NEVER);

	/* Stopped already: idle again changes nothing and returns the next timer. */
	KT_ASSERT_EQ(tick_stop_idle(cpu_rq(2)), TIMER_NEVER);
	KT_ASSERT(cpu_rq(2)->tick_stopped);
	host_set_cpu_id(0);
}

KT_CASE(a_restarted_tick_keeps_its_grid_however_long_it_stopped)
{
	/* Idle stretches from the tick's stop to its restart, in ns. */
	static const uint64_t idle[] = { 10 * US, 350 * US, 999 * US, P + 1, 2 * P + 400 * US, 3 * P + 999 * US,
					 4 * P, 4 * P + 1, 17 * P + 3 * US, 12345 * P + 777 };

	KT_ASSERT(boot());
	for (int c = 0; c < NCPU; c++) {
		uint64_t now = t0 + 5 * P + 42 * US;

		on_cpu(c, now);
		tick_start(cpu_rq(c), now);
		for (unsigned int i = 0; i < sizeof(idle) / sizeof(idle[0]); i++) {
			uint64_t stop = now + 250 * US;
			uint64_t restart = stop + idle[i];

			/* Idle at @stop (the pending slot may be before or after the restart). */
			on_cpu(c, stop);
			tick_stop_idle(cpu_rq(c));
			KT_ASSERT(cpu_rq(c)->tick_stopped);
			on_cpu(c, restart);
			tick_start(cpu_rq(c), restart);
			KT_ASSERT_MSG(timers_next_expiry(c) == grid_after(c, restart),
				      "cpu%d idle %llu ns: tick at %llu, grid %llu", c, (unsigned long long)idle[i],
				      (unsigned long long)(timers_next_expiry(c) - t0),
				      (unsigned long long)(grid_after(c, restart) - t0));
			now = restart;
		}
		/* Restarted exactly on a slot, soon after the last tick: the next slot. */
		on_cpu(c, now + 100 * US);
		tick_stop_idle(cpu_rq(c));
		now = grid_after(c, now + 2 * P);
		on_cpu(c, now);
		tick_start(cpu_rq(c), now);
		KT_ASSERT_EQ(timers_next_expiry(c), now + P);
	}
	host_set_cpu_id(0);
}

KT_CASE(a_late_tick_is_held_back_by_as_long_as_it_was_late)
{
	uint64_t now, slot, late;

	KT_ASSERT(boot());
	now = t0 + 9 * P;
	on_cpu(1, now);
	tick_start(cpu_rq(1), now);
	slot = grid_after(1, now);

	/* On time (20 us in): the next slot. */
	on_cpu(1, slot + 20 * US);
	timers_run(host_fake_now);
	KT_ASSERT_EQ(timers_next_expiry(1), slot + P);
	KT_ASSERT_EQ(cpu_rq(1)->tick_overruns, 0);

	/* 3.5 periods late: the first slot after now + 3.5 periods. */
	slot += P;
	late = 3 * P + 500 * US;
	on_cpu(1, slot + late);
	timers_run(host_fake_now);
	KT_ASSERT_EQ(timers_next_expiry(1), grid_after(1, slot + 2 * late));
	KT_ASSERT_EQ(cpu_rq(1)->tick_overruns, 1);

	/* 250 ms late: held back by at most 100 ms. */
	slot = timers_next_expiry(1);
	on_cpu(1, slot + 250 * P);
	timers_run(host_fake_now);
	KT_ASSERT_EQ(timers_next_expiry(1), grid_after(1, slot + 350 * P));
	KT_ASSERT_EQ(cpu_rq(1)->tick_overruns, 2);
	host_set_cpu_id(0);
}
