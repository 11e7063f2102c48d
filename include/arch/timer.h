/*
 * The clock and the per-CPU event timer the port provides (the scheduler's
 * timers, include/kernel/time/timer.h, are built on these two calls).
 *
 *   arch_now_ns()            monotonic nanoseconds, the same clock on every
 *                            CPU; callable from any context, IRQs on or off.
 *   arch_timer_program(t)    arm the calling CPU's one-shot event for
 *                            absolute time @t (TIMER_NEVER: cancel it); on
 *                            expiry the port calls timers_run() on that CPU
 *                            from its interrupt. Called with IRQs masked.
 *   arch_timer_read_hw(hw)   what the calling CPU's event timer really holds
 *                            (the watchdog's kick report compares it with
 *                            what the timer heap recorded); false if the
 *                            port cannot read its timer back.
 */
#ifndef ARCH_TIMER_H
#define ARCH_TIMER_H

#include <stdbool.h>
#include <stdint.h>

#define TIMER_NEVER UINT64_MAX

uint64_t arch_now_ns(void);
void arch_timer_program(uint64_t deadline_ns);

struct arch_timer_hw {
	uint64_t deadline_ns;	/* when the event fires (meaningful when enabled) */
	bool enabled;		/* counting towards deadline_ns */
	bool masked;		/* its output to the interrupt controller is masked */
	bool fired;		/* the deadline has passed: the event is asserted */
};
bool arch_timer_read_hw(struct arch_timer_hw *hw);

#endif
