/*
 * What running the kernel costs, for a port that does not execute it on the
 * CPU it models (the simulator, tools/schedsim): the kernel marks where time
 * goes, the port charges it to the simulated CPU. On ARM the code runs and
 * takes its own time: both hooks compile to nothing / a plain call.
 *
 *   arch_cost(what)   the scheduler just did @what (a wake-up, the tick's
 *                     work); the other costs (context switch, interrupt
 *                     entry and exit, idle entry and exit, IPIs) are the
 *                     port's own and charged there.
 *   arch_work(fn, cost_ns, arg)
 *                     a task computes: returns fn(arg), which must be a
 *                     pure function of @arg. cost_ns(arg) is what it costs
 *                     at capacity 1024, asked only by a port that models
 *                     time: it makes the CPU busy that long, scaled by its
 *                     capacity, interruptible by IRQs and preemption like
 *                     the real loop (and may reuse fn's value for an @arg).
 *   arch_spin_until(t)  busy until the clock reads @t, preemption included:
 *                     a spin on the clock (rt-app's "runtime", spawn's
 *                     hogs, schedtest's duty cycles). ARM: boot/sched_arch.c.
 */
#ifndef ARCH_COST_H
#define ARCH_COST_H

#include <stdint.h>

enum arch_cost_kind {
	COST_SELECT,		/* select_task_rq() at a wake-up: the policy's choice */
	COST_WAKEUP,		/* a woken or new task enqueued (the wake-up's lock and rq work) */
	COST_TICK,		/* sched_tick()'s work and the tick timer's re-arm */
	COST_IDLE_ENTER,	/* the idle loop up to cpu_idle_enter()'s timestamp (idle from there on) */
	COST_IDLE_STATE,	/* from that timestamp to the idle state: governor, rail, power-down */
	COST_IDLE_EXIT,		/* from the idle state's end back to the idle loop */
	COST_SLEEP,		/* a task goes to sleep: its timer armed, its state set */
	COST_SCHEDULE,		/* schedule() up to the pick (the switch itself is the port's) */
	COST_NOHZ,		/* the tick stopped for idle, or restarted at the pick after it */
	COST_NR,
};

typedef uint64_t (*arch_work_fn)(uint64_t arg);

#ifdef __arm__
static inline void arch_cost(enum arch_cost_kind what) { (void)what; }
static inline uint64_t arch_work(arch_work_fn fn, arch_work_fn cost_ns, uint64_t arg)
{
	(void)cost_ns;
	return fn(arg);
}
#else
void arch_cost(enum arch_cost_kind what);
uint64_t arch_work(arch_work_fn fn, arch_work_fn cost_ns, uint64_t arg);
#endif
void arch_spin_until(uint64_t deadline_ns);

#endif
