/*
 * Per-CPU software timers on the CPU's one-shot hardware timer.
 *
 * Each CPU has a binary min-heap of pending timers ordered by expiry
 * (O(log n) arm/cancel), under one lock taken with IRQs off. A timer fires
 * on the CPU it was armed on; timers are armed only on the calling CPU, so
 * the hardware deadline is always reprogrammed locally. Callbacks run in
 * IRQ context without the lock held and may re-arm their timer.
 * The port provides the clock and the hardware timer (include/arch/timer.h).
 */
#ifndef KERNEL_TIMER_H
#define KERNEL_TIMER_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/timer.h"
#include "kernel/time/time.h"

#define TIMERS_PER_CPU 2048

struct timer;
typedef void (*timer_fn)(struct timer *t);

struct timer {
	uint64_t expires;
	uint64_t period;	/* 0: one-shot; else re-armed this much later as it fires */
	timer_fn fn;
	void *arg;
	int cpu;		/* heap it is on, or -1 */
	int heap_index;
};

void timers_init_cpu(int cpu);
void timer_setup(struct timer *t, timer_fn fn, void *arg);
/*
 * Make @t periodic (@period_ns > 0): as it fires, timers_run() moves it
 * @period_ns on in the heap before its callback runs, so a periodic
 * callback costs no re-arm of its own. The callback may still move it
 * (timer_arm(): a late tick held back) or cancel it.
 */
void timer_set_period(struct timer *t, uint64_t period_ns);
/* Arm (or re-arm) @t on the calling CPU for absolute time @expires. */
void timer_arm(struct timer *t, uint64_t expires);
/* Disarm; returns true if it was pending. From any CPU (the timer's base is locked). */
bool timer_cancel(struct timer *t);
bool timer_pending(const struct timer *t);
/* Earliest expiry on @cpu, or TIMER_NEVER. */
uint64_t timers_next_expiry(int cpu);
unsigned int timers_nr_pending(int cpu);
/*
 * A CPU's timer state for diagnostics (the watchdog, stress), read racily
 * from any CPU without its base lock: the CPU being described may be stuck
 * holding it.
 */
struct timers_diag {
	unsigned int nr;	/* pending timers */
	uint64_t next;		/* earliest expiry, TIMER_NEVER if none */
	bool running;		/* inside timers_run() */
	uint64_t programmed;	/* deadline the hardware was last set for (0: fired, being handled) */
	uint64_t last_run_ns;	/* when timers_run() last started (a backlog's progress) */
	uintptr_t current_fn;	/* address of the callback it is in, 0: none */
	unsigned int callbacks_run;	/* callbacks done by the timers_run() in progress (or the last) */
};
void timers_diag(int cpu, struct timers_diag *d);
/* A time in whole ms for a report; TIMER_NEVER as -1. */
static inline long long timer_ms_or_never(uint64_t t)
{
	return t == TIMER_NEVER ? -1ll : (long long)(t / NSEC_PER_MSEC);
}
/* Is @cpu inside timers_run()'s callbacks? (A callback must not schedule.) */
bool timers_in_callbacks(int cpu);
/*
 * From a callback: the time its run began, the clock the interrupt read
 * (timers_run()'s @now) for the first callback, a later reading for the
 * others; the callback's clock without another read.
 */
uint64_t timers_cb_now(void);
/*
 * The clock for work done now on this CPU (IRQs masked): timers_cb_now()
 * inside a timer callback (a wake-up from a timer is timed at its
 * interrupt, as the tick is: one clock read fewer), else arch_now_ns().
 */
uint64_t timers_now(void);
/*
 * Run expired timers of the calling CPU, then reprogram the hardware. One
 * call runs callbacks for at most TIMERS_RUN_BUDGET_NS (and at least one):
 * a backlog (a vCPU the host did not run, callbacks whose wake-ups wait on
 * locks) is left to another interrupt after a gap as long as the run took
 * (at most TIMERS_BACKLOG_GAP_MAX_NS), so the CPU keeps scheduling, taking
 * IPIs and running its tasks between the interrupts that drain it.
 */
#define TIMERS_RUN_BUDGET_NS (500ull * NSEC_PER_USEC)
#define TIMERS_BACKLOG_GAP_MAX_NS NSEC_PER_MSEC
void timers_run(uint64_t now);
/* How many timers_run() calls, on all CPUs so far, left due timers to the next interrupt. */
uint64_t timer_backlog_breaks(void);
/* timers_run() if this CPU's earliest timer is due (its interrupt is late); returns how late, 0 if none due. */
uint64_t timers_run_if_late(uint64_t now);

/* The local timer hardware lost its state: reprogram this CPU's earliest timer. */
void timers_resume_local(void);

#endif
