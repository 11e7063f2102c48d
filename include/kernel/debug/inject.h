/*
 * Delay injection (debug kernels): seeded busy-waits at chosen points of the
 * scheduler's SMP protocols. A loaded host opens the windows of these
 * protocols by descheduling a vCPU at the wrong moment (a lock holder, a
 * waker between its push and its IPI, an idle CPU between its last check
 * and WFI, a timer callback whose wake-up waits on a lock); `inject` opens
 * the same windows on purpose, so that a stress run on a quiet host, or
 * under icount (deterministically, for a given seed), exercises them. Release kernels compile every call to nothing.
 *
 * Console: `inject <seed> <points|all> <[min_us..]max_us> [permille
 * [cpus]]`, `inject off`, `inject` (the settings and how many delays each
 * point has taken). Each point, when enabled, delays with probability
 * permille/1000 (default 1000) for a uniformly drawn min_us..max_us (min_us
 * defaults to 0) microseconds, from a per-CPU xorshift stream seeded by
 * <seed> and the CPU number, on the CPUs of the decimal mask <cpus> (default all):
 * slow lock holders on some CPUs make another CPU wait on its own lock.
 * The modifier `noirq` among the points keeps interrupt handlers out: a
 * handler made longer than the tick period by construction (every lock it
 * releases delayed by more than a period) leaves no time outside
 * interrupts on any kernel; delayed task-context holders make a tick wait
 * for its lock, which is what a descheduled vCPU did.
 */
#ifndef KERNEL_INJECT_H
#define KERNEL_INJECT_H

#include <stdbool.h>
#include <stdint.h>

enum inject_point {
	INJECT_UNLOCK,		/* a spinlock held, just before its release (a preempted holder) */
	INJECT_IPI,		/* just before a reschedule IPI is sent (a slow waker) */
	INJECT_IDLE,		/* idle loop: after its last check for work, before WFI */
	INJECT_IRQ_EXIT,	/* end of an IRQ, before the need_resched check */
	INJECT_WAKE_LIST,	/* a wakee between its old rq and its new one (push, drain) */
	INJECT_TIMER,		/* before each timer callback, in the interrupt (a wake-up waiting
				 * long for rq locks: backlogs of due timers) */
	INJECT_NR_POINTS,
};

#ifdef CONFIG_SCHED_DEBUG
/* Delay here if @point is enabled and this CPU's stream says so. Any context. */
void inject_delay(enum inject_point point);
/* Enable the points in @mask (bit n = point n; 0: off) with the given stream and sizes. */
void inject_configure(uint32_t seed, uint32_t mask, uint32_t min_us, uint32_t max_us, uint32_t permille,
		      uint32_t cpus);
/* Delays taken at @point since the last inject_configure(). */
uint64_t inject_count(enum inject_point point);
#else
static inline void inject_delay(enum inject_point point)
{
	(void)point;
}
#endif

#endif
