/*
 * Clock and event-timer front end: picks a timer driver from the DT and
 * converts between nanoseconds and its ticks (kernel/time/time.c).
 */
#include "drivers/timer.h"

#include "arch/arm.h"
#include "arch/timer.h"
#include "drivers/dt.h"
#include "drivers/gic.h"
#include "kernel/lib/fdt.h"
#include "kernel/lib/panic.h"
#include "kernel/time/time.h"

static struct timer_ops timer;
/* What a clock read needs, side by side: one base address for the whole read. */
static struct {
	uintptr_t counter_mmio;		/* timer.counter_mmio */
	struct clock_conv conv;
} clk;
static timer_event_fn event_fn;

static void timer_irq(uint32_t irq, void *arg)
{
	(void)irq;
	(void)arg;
	timer.ack();
	if (event_fn)
		event_fn();
}

int timer_init_dt(const struct fdt *fdt)
{
	if (arch_timer_probe(fdt, &timer) != 0 && a9_timer_probe(fdt, &timer) != 0)
		dt_panicf(fdt, fdt_root(fdt), "compatible",
			  "no node is arm,armv7-timer or arm,cortex-a9-twd-timer: no timer");
	clk.counter_mmio = timer.counter_mmio;
	if (clock_conv_init(&clk.conv, timer.freq_hz) != 0)
		panic("timer: %s frequency %u Hz is outside 4 MHz..1 GHz", timer.name,
		      (unsigned)timer.freq_hz);
	irq_register(timer.irq, timer_irq, NULL);
	return 0;
}

void timer_cpu_init(void)
{
	timer.cpu_init();
	gic_enable(timer.irq);
}

/* `crash timer`: this CPU's timer interrupt stops reaching it (its PPI masked at the GIC), IRQs stay on. */
void timer_local_irq_mask(bool masked)
{
	if (masked)
		gic_disable(timer.irq);
	else
		gic_enable(timer.irq);
}

/* After a power-down that lost it: the local timer's registers (its PPI enable is the GIC's). */
void timer_cpu_resume(void)
{
	timer.cpu_init();
}

static inline uint64_t read_clock_ns(void)
{
	uint64_t ticks;

	if (clk.counter_mmio) {
		ticks = mmio_read_counter64(clk.counter_mmio);
	} else {
		uint32_t lo, hi;

		__asm__ volatile("isb\n\tmrrc p15, 1, %0, %1, c14" : "=r"(lo), "=r"(hi));
		ticks = ((uint64_t)hi << 32) | lo;
	}
	return clock_ticks_to_ns(&clk.conv, ticks);
}

uint64_t clock_ns(void)
{
	return read_clock_ns();
}

/* The scheduler's clock (include/arch/timer.h): the same read, which the link may inline. */
uint64_t arch_now_ns(void)
{
	return read_clock_ns();
}

void clockevent_set_deadline(uint64_t deadline_ns)
{
	timer.set_deadline(clock_ns_to_ticks(&clk.conv, deadline_ns));
}

void clockevent_cancel(void)
{
	timer.cancel();
}

bool clockevent_read(struct arch_timer_hw *hw)
{
	uint64_t ticks;

	if (!timer.read)
		return false;
	timer.read(&ticks, &hw->enabled, &hw->masked, &hw->fired);
	hw->deadline_ns = clock_ticks_to_ns(&clk.conv, ticks);
	return true;
}

void timer_set_handler(timer_event_fn fn)
{
	event_fn = fn;
}

const char *timer_name(void)
{
	return timer.name;
}

uint32_t timer_freq(void)
{
	return timer.freq_hz;
}

void udelay(uint32_t us)
{
	uint64_t end = clock_ns() + (uint64_t)us * NSEC_PER_USEC;

	while (clock_ns() < end)
		;
}
