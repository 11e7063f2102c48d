/*
 * Cortex-A9 MPCore timers: the 64-bit global timer is the clock (shared by
 * all CPUs), the private TWD timer of each CPU is its one-shot event timer.
 * Both run at PERIPHCLK, taken from the nodes' "clocks" (a fixed-clock) or
 * "clock-frequency". The TWD is 32-bit: a far deadline is clamped and the
 * event handler re-arms (it sees that the deadline has not passed).
 */
#include "drivers/timer.h"

#include "arch/arm.h"
#include "kernel/fdt.h"
#include "kernel/printk.h"

/* The counter is at 0x00 (low) and 0x04 (high): mmio_read_counter64()'s layout. */
#define GT_CTRL     0x08
#define GT_CTRL_ENABLE (1u << 0)

#define TWD_LOAD   0x00
#define TWD_CTRL   0x08
#define TWD_INTSTAT 0x0c
#define TWD_CTRL_ENABLE (1u << 0)
#define TWD_CTRL_IRQ    (1u << 2)

static uintptr_t gt_base, twd_base;

static void twd_set_deadline(uint64_t ticks)
{
	uintptr_t twd = twd_base;	/* once: the MMIO barriers would reload it */
	uint64_t now = mmio_read_counter64(gt_base);
	uint64_t delta = ticks > now ? ticks - now : 1;

	if (delta > 0xffffffffu)
		delta = 0xffffffffu;
	/*
	 * Writing Load also writes the Counter, and an enabled one-shot timer
	 * counts down from there (A9 MPCore TRM, 4.2.1): no need to stop it
	 * first (a cancelled one starts with the Control write). Clear a stale
	 * event so only the new deadline raises the IRQ.
	 */
	mmio_write32(twd + TWD_INTSTAT, 1);
	mmio_write32(twd + TWD_LOAD, (uint32_t)delta);
	mmio_write32(twd + TWD_CTRL, TWD_CTRL_ENABLE | TWD_CTRL_IRQ);
}

static void twd_cancel(void)
{
	mmio_write32(twd_base + TWD_CTRL, 0);
	mmio_write32(twd_base + TWD_INTSTAT, 1);
}

static void twd_ack(void)
{
	mmio_write32(twd_base + TWD_INTSTAT, 1);
}

static void twd_cpu_init(void)
{
	twd_cancel();
}

static int node_clock_hz(const struct fdt *fdt, int node, uint32_t *hz)
{
	uint32_t ph;

	if (fdt_prop_u32(fdt, node, "clock-frequency", hz) == 0)
		return 0;
	if (fdt_prop_cell(fdt, node, "clocks", 0, &ph) == 0) {
		int clk = fdt_node_by_phandle(fdt, ph);

		if (clk >= 0 && fdt_prop_u32(fdt, clk, "clock-frequency", hz) == 0)
			return 0;
	}
	return -1;
}

int a9_timer_probe(const struct fdt *fdt, struct timer_ops *ops)
{
	int gt = fdt_find_compatible(fdt, -1, "arm,cortex-a9-global-timer");
	int twd = fdt_find_compatible(fdt, -1, "arm,cortex-a9-twd-timer");
	uint64_t a, size;
	uint32_t hz;

	if (gt < 0 || twd < 0)
		return -1;
	if (fdt_reg(fdt, gt, 0, &a, &size) != 0)
		return -1;
	gt_base = (uintptr_t)a;
	if (fdt_reg(fdt, twd, 0, &a, &size) != 0 || fdt_irq(fdt, twd, 0, &ops->irq) != 0)
		return -1;
	twd_base = (uintptr_t)a;
	if (node_clock_hz(fdt, gt, &hz) != 0) {
		kprintf("timer: %s: no clock-frequency or fixed-clock; cannot time\n",
			fdt_node_name(fdt, gt));
		return -1;
	}
	/* Start the global timer if the boot loader did not (prescaler 0). */
	mmio_write32(gt_base + GT_CTRL, GT_CTRL_ENABLE);
	ops->name = "arm,cortex-a9-global-timer + twd";
	ops->freq_hz = hz;
	ops->counter_mmio = gt_base;
	ops->set_deadline = twd_set_deadline;
	ops->cancel = twd_cancel;
	ops->ack = twd_ack;
	ops->cpu_init = twd_cpu_init;
	return 0;
}
