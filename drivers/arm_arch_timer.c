/*
 * ARM generic timer (Cortex-A15/A7, QEMU virt): clock = CNTVCT, events =
 * the virtual timer (CNTV_CVAL/CTL, PPI "interrupts" entry 2). The virtual
 * counter and timer are usable from PL1 in both security states, so the
 * same code runs in Secure SVC (QEMU vexpress-a15), Non-secure SVC (virt)
 * and after U-Boot's HYP drop (a real TC2). The frequency is CNTFRQ as the
 * firmware set it, unless the DT says "clock-frequency".
 */
#include "drivers/timer.h"

#include "arch/arm.h"
#include "drivers/dt.h"
#include "kernel/lib/fdt.h"
#include "kernel/lib/printk.h"

#define CNTV_CTL_ENABLE (1u << 0)
#define CNTV_CTL_IMASK  (1u << 1)
#define CNTV_CTL_ISTATUS (1u << 2)

static void cntv_set_deadline(uint64_t ticks)
{
	__asm__ volatile("mcrr p15, 3, %0, %1, c14" ::"r"((uint32_t)ticks),
			 "r"((uint32_t)(ticks >> 32)));
	__asm__ volatile("mcr p15, 0, %0, c14, c3, 1" ::"r"(CNTV_CTL_ENABLE));
	isb();
}

static void cntv_cancel(void)
{
	__asm__ volatile("mcr p15, 0, %0, c14, c3, 1" ::"r"(0u));
	isb();
}

static void cntv_ack(void)
{
	/* Level interrupt: mask it until the next deadline is programmed. */
	__asm__ volatile("mcr p15, 0, %0, c14, c3, 1" ::"r"(CNTV_CTL_ENABLE | CNTV_CTL_IMASK));
	isb();
}

static void cntv_read(uint64_t *deadline_ticks, bool *enabled, bool *masked, bool *fired)
{
	uint32_t lo, hi, ctl;

	__asm__ volatile("mrrc p15, 3, %0, %1, c14" : "=r"(lo), "=r"(hi));
	__asm__ volatile("mrc p15, 0, %0, c14, c3, 1" : "=r"(ctl));
	*deadline_ticks = ((uint64_t)hi << 32) | lo;
	*enabled = ctl & CNTV_CTL_ENABLE;
	*masked = ctl & CNTV_CTL_IMASK;
	*fired = ctl & CNTV_CTL_ISTATUS;
}

static void cntv_cpu_init(void)
{
	cntv_cancel();
}

int arch_timer_probe(const struct fdt *fdt, struct timer_ops *ops)
{
	int node = fdt_find_compatible(fdt, -1, "arm,armv7-timer");
	uint32_t freq;

	if (node < 0)
		return -1;
	ops->irq = dt_irq(fdt, node, 2);	/* entry 2: the virtual timer */
	if (fdt_prop_u32(fdt, node, "clock-frequency", &freq) != 0)
		__asm__ volatile("mrc p15, 0, %0, c14, c0, 0" : "=r"(freq));
	ops->name = "arm,armv7-timer (virtual)";
	ops->freq_hz = freq;
	ops->counter_mmio = 0;	/* CNTVCT, read inline by clock_ns() */
	ops->set_deadline = cntv_set_deadline;
	ops->cancel = cntv_cancel;
	ops->ack = cntv_ack;
	ops->cpu_init = cntv_cpu_init;
	ops->read = cntv_read;
	return 0;
}
