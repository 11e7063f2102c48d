/*
 * System clock and per-CPU one-shot timer, found from the DT: the ARM
 * generic timer ("arm,armv7-timer": virtual counter and virtual timer, as
 * Linux uses on 32-bit ARM when not in HYP) or, on Cortex-A9, the global
 * timer as the clock and the private TWD as the per-CPU event timer.
 * clock_ns() is monotonic and the same on every CPU.
 */
#ifndef DRIVERS_TIMER_H
#define DRIVERS_TIMER_H

#include <stdbool.h>
#include <stdint.h>

struct fdt;

typedef void (*timer_event_fn)(void);

int timer_init_dt(const struct fdt *fdt);
void timer_cpu_init(void);
/* This CPU's timer lost its state (power-down): reset its registers; the caller reprograms. */
void timer_cpu_resume(void);
uint64_t clock_ns(void);
/* Mask (or unmask) this CPU's timer interrupt at the interrupt controller: a lost-interrupt test. */
void timer_local_irq_mask(bool masked);
/* Arm this CPU's one-shot timer for absolute time @deadline_ns. */
void clockevent_set_deadline(uint64_t deadline_ns);
void clockevent_cancel(void);
/* Read this CPU's timer back (ticks converted to ns); false if the driver cannot. */
struct arch_timer_hw;
bool clockevent_read(struct arch_timer_hw *hw);
/* Called (IRQ context, on the CPU whose timer fired) on expiry. */
void timer_set_handler(timer_event_fn fn);
const char *timer_name(void);
uint32_t timer_freq(void);
/* Busy-wait (for boot-time timeouts before there is a scheduler). */
void udelay(uint32_t us);

/*
 * A 64-bit MMIO counter kept as two 32-bit words (low at +0, high at +4,
 * as the A9 global timer): high, low, high again until the highs agree
 * (A9 MPCore TRM 4.4.1). In asm so that it needs no more registers than a
 * leaf function has free (clock_ns() then saves none).
 */
static inline uint64_t mmio_read_counter64(uintptr_t base)
{
#ifdef __arm__
	uint32_t lo, hi, hi2;

	__asm__ volatile("1:	ldr	%1, [%3, #4]\n"
			 "	ldr	%0, [%3]\n"
			 "	ldr	%2, [%3, #4]\n"
			 "	cmp	%1, %2\n"
			 "	bne	1b"
			 : "=&r"(lo), "=&r"(hi), "=&r"(hi2)
			 : "r"(base)
			 : "cc", "memory");
	return ((uint64_t)hi << 32) | lo;
#else
	(void)base;
	return 0;	/* no MMIO counters on the host */
#endif
}

/* Implementations: each fills struct timer_ops; see timer.c. */
struct timer_ops {
	const char *name;
	uint32_t freq_hz;
	uint32_t irq;
	/*
	 * The counter, read inline by clock_ns() (every switch and wake-up
	 * reads the clock): 0 for the CP15 virtual counter (CNTVCT), else the
	 * address of a 64-bit MMIO counter as two 32-bit words, low at +0 and
	 * high at +4 (the A9 global timer), read high-low-high.
	 */
	uintptr_t counter_mmio;
	void (*set_deadline)(uint64_t ticks);	/* absolute ticks */
	void (*cancel)(void);
	void (*ack)(void);			/* in the IRQ handler */
	void (*cpu_init)(void);
	/* This CPU's timer as it is: deadline in absolute ticks and its state (may be NULL). */
	void (*read)(uint64_t *deadline_ticks, bool *enabled, bool *masked, bool *fired);
};

int arch_timer_probe(const struct fdt *fdt, struct timer_ops *ops);
int a9_timer_probe(const struct fdt *fdt, struct timer_ops *ops);

#endif
