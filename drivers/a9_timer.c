/*
 * Cortex-A9 MPCore timers: the 64-bit global timer is the clock (shared by
 * all CPUs), the private TWD timer of each CPU is its one-shot event timer.
 * Both run at PERIPHCLK, measured against the motherboard's 24 MHz counter
 * when there is one and compared with the nodes' "clocks" (a fixed-clock) or
 * "clock-frequency" (include/drivers/clock_check.h: the DT's value is
 * QEMU's; Linux's DTs give none, and its TWD driver calibrates too). The TWD is 32-bit: a far deadline is clamped and the
 * event handler re-arms (it sees that the deadline has not passed).
 */
#include "drivers/timer.h"

#include "arch/arm.h"
#include "drivers/clock_check.h"
#include "drivers/dt.h"
#include "drivers/vexpress.h"
#include "kernel/lib/fdt.h"
#include "kernel/lib/printk.h"

/* The counter is at 0x00 (low) and 0x04 (high): mmio_read_counter64()'s layout. */
#define GT_CTRL     0x08
#define GT_CTRL_ENABLE (1u << 0)

#define TWD_LOAD   0x00
#define TWD_COUNTER 0x04
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

/* The TWD counts down: its deadline is now + Counter (0 once it has fired, one-shot). */
static void twd_read(uint64_t *deadline_ticks, bool *enabled, bool *masked, bool *fired)
{
	uint64_t now = mmio_read_counter64(gt_base);
	uint32_t ctrl = mmio_read32(twd_base + TWD_CTRL);

	*deadline_ticks = now + mmio_read32(twd_base + TWD_COUNTER);
	*enabled = ctrl & TWD_CTRL_ENABLE;
	*masked = !(ctrl & TWD_CTRL_IRQ);
	*fired = mmio_read32(twd_base + TWD_INTSTAT) & 1;
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

/* Offsets in the A9's private memory region (PERIPHBASE), fixed by the A9 MPCore TRM. */
#define PRIV_GT_OFFSET  0x200
#define PRIV_TWD_OFFSET 0x600
#define CALIBRATE_24MHZ_TICKS 48000u	/* 2 ms: +-1 tick of 24 MHz is 21 ppm */

static int first_enabled(const struct fdt *fdt, const char *compat)
{
	int node = -1;

	do
		node = fdt_find_compatible(fdt, node, compat);
	while (node >= 0 && !fdt_node_enabled(fdt, node));
	return node;
}

/* PERIPHCLK measured against the motherboard's 24 MHz counter, rounded to 10 kHz. */
static int calibrate_hz(uint32_t *hz)
{
	uint32_t c0, g0, g1;

	if (!vexpress_sysreg_present())
		return -1;
	c0 = vexpress_read_24mhz();
	g0 = mmio_read32(gt_base);
	while (vexpress_read_24mhz() - c0 < CALIBRATE_24MHZ_TICKS)
		;
	g1 = mmio_read32(gt_base);
	*hz = (uint32_t)(((uint64_t)(g1 - g0) * (24000000u / CALIBRATE_24MHZ_TICKS) + 5000) / 10000 * 10000);
	return *hz ? 0 : -1;
}

int a9_timer_probe(const struct fdt *fdt, struct timer_ops *ops)
{
	int gt = first_enabled(fdt, "arm,cortex-a9-global-timer");
	int twd = first_enabled(fdt, "arm,cortex-a9-twd-timer");
	uint32_t dt_hz = 0, meas_hz = 0, hz;
	bool have_dt, have_meas;
	int clk_node;

	if (twd < 0)
		return -1;
	twd_base = dt_mmio(fdt, twd, 0, NULL);
	ops->irq = dt_irq(fdt, twd, 0);
	if (gt >= 0) {
		gt_base = dt_mmio(fdt, gt, 0, NULL);
	} else {
		/* Linux's CoreTile DTs describe the TWD only; the global timer sits beside it. */
		gt_base = twd_base - PRIV_TWD_OFFSET + PRIV_GT_OFFSET;
		kprintf("timer: no arm,cortex-a9-global-timer node; using the one at 0x%08x beside %s\n",
			(unsigned)gt_base, fdt_node_name(fdt, twd));
	}
	/* Start the global timer if the boot loader did not (prescaler 0). */
	mmio_write32(gt_base + GT_CTRL, GT_CTRL_ENABLE);
	clk_node = gt >= 0 ? gt : twd;
	have_dt = node_clock_hz(fdt, clk_node, &dt_hz) == 0;
	have_meas = calibrate_hz(&meas_hz) == 0;
	switch (clock_choose(have_dt, dt_hz, have_meas, meas_hz, &hz)) {
	case CLOCK_NONE:
		dt_panicf(fdt, clk_node, "clocks",
			  "no clock-frequency or fixed clock, and no arm,vexpress-sysreg 24 MHz counter to measure it");
		break;
	case CLOCK_MEASURED:
		kprintf("timer: %s has no clock; measured %u Hz against the 24 MHz counter\n",
			fdt_node_name(fdt, clk_node), (unsigned)hz);
		break;
	case CLOCK_MEASURED_OVER_DT:
		kprintf("timer: %s: the DT says %u Hz but %u Hz was measured against the 24 MHz counter; using %u Hz\n",
			fdt_node_name(fdt, clk_node), (unsigned)dt_hz, (unsigned)hz, (unsigned)hz);
		break;
	case CLOCK_FROM_DT:
		break;
	}
	ops->name = "arm,cortex-a9-global-timer + twd";
	ops->freq_hz = hz;
	ops->counter_mmio = gt_base;
	ops->set_deadline = twd_set_deadline;
	ops->cancel = twd_cancel;
	ops->ack = twd_ack;
	ops->cpu_init = twd_cpu_init;
	ops->read = twd_read;
	return 0;
}
