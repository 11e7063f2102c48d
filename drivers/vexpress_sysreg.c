/*
 * Versatile Express system registers (V2M-P1 motherboard). SYS_CFG
 * transactions: include/drivers/sys_cfg.h (the sequence, host-tested),
 * run here on the real registers under one lock.
 */
#include "drivers/vexpress.h"

#include "arch/arm.h"
#include "boot/asm.h"
#include "drivers/dt.h"
#include "drivers/sys_cfg.h"
#include "drivers/timer.h"
#include "kernel/lib/fdt.h"
#include "kernel/sched/sched.h"
#include "kernel/time/time.h"

#define SYS_FLAGSSET  0x30
#define SYS_FLAGSCLR  0x34
#define SYS_24MHZ     0x5c

static uintptr_t sysreg;

int vexpress_sysreg_init_dt(const struct fdt *fdt)
{
	int node = fdt_find_compatible(fdt, -1, "arm,vexpress-sysreg");

	if (node < 0 || !fdt_node_enabled(fdt, node))
		return SYS_CFG_ENODEV;
	sysreg = dt_mmio(fdt, node, 0, NULL);
	return 0;
}

void vexpress_sysreg_fallback(uintptr_t base)
{
	if (!sysreg)
		sysreg = base;
}

void sys_cfg_write_nowait(enum sys_cfg_func func)
{
	mmio_write32(sysreg + SYS_CFGDATA, 0);
	mmio_write32(sysreg + SYS_CFGSTAT, 0);
	mmio_write32(sysreg + SYS_CFGCTRL, SYS_CFGCTRL_START | SYS_CFGCTRL_WRITE | ((uint32_t)(func & 0x3f) << 20));
	for (int spin = 0; spin < 10000000; spin++)
		if (mmio_read32(sysreg + SYS_CFGSTAT) & (SYS_CFGSTAT_COMPLETE | SYS_CFGSTAT_ERROR))
			break;
}

bool vexpress_sysreg_present(void)
{
	return sysreg != 0;
}

uint32_t vexpress_read_24mhz(void)
{
	return mmio_read32(sysreg + SYS_24MHZ);
}

void vexpress_set_flags(uint32_t entry)
{
	mmio_write32(sysreg + SYS_FLAGSCLR, ~0u);
	mmio_write32(sysreg + SYS_FLAGSSET, entry);
	dsb();
}

/* ---------------------------------------------------------------- SYS_CFG */

static uint32_t sysreg_read(void *ctx, uint32_t off)
{
	(void)ctx;
	return mmio_read32(sysreg + off);
}

static void sysreg_write(void *ctx, uint32_t off, uint32_t v)
{
	(void)ctx;
	mmio_write32(sysreg + off, v);
}

static uint64_t sysreg_now(void *ctx)
{
	(void)ctx;
	return clock_ns();
}

/* A task with IRQs on may sleep (never the idle task: it must not block). */
static bool may_sleep(void)
{
	const struct task *t = current_task();

	return !(read_cpsr() & PSR_I) && t && !t->is_idle;
}

static void sysreg_wait(void *ctx)
{
	(void)ctx;
	if (may_sleep())
		task_sleep_ns(SYS_CFG_POLL_NS);
}

static const struct sys_cfg_io sysreg_io = { sysreg_read, sysreg_write, sysreg_now, sysreg_wait, NULL };

/*
 * One user at a time: the registers hold one transaction. Not a spinlock
 * with IRQs off across the wait (up to 10 ms per transaction): a flag
 * taken with a compare-and-swap; a task waits for it in 100 us sleeps.
 */
static volatile uint32_t sys_cfg_busy;

static int sys_cfg_lock(void)
{
	uint64_t deadline = clock_ns() + SYS_CFG_TIMEOUT_NS;

	while (!__sync_bool_compare_and_swap(&sys_cfg_busy, 0, 1)) {
		if (!may_sleep() || clock_ns() > deadline)
			return SYS_CFG_EBUSY;
		task_sleep_ns(SYS_CFG_POLL_NS);
	}
	return 0;
}

static void sys_cfg_unlock(void)
{
	__sync_lock_release(&sys_cfg_busy);
}

static int sys_cfg_xfer(bool write, enum sys_cfg_func func, unsigned site,
			unsigned position, unsigned device, uint32_t *data)
{
	int err;

	if (!sysreg)
		return SYS_CFG_ENODEV;
	if ((err = sys_cfg_lock()) != 0)
		return err;
	err = sys_cfg_xfer_io(&sysreg_io, write, (unsigned)func, sys_cfg_resolve_site(&sysreg_io, site), position,
			      device, data);
	sys_cfg_unlock();
	return err;
}

int sys_cfg_read(enum sys_cfg_func func, unsigned site, unsigned position,
		 unsigned device, uint32_t *data)
{
	return sys_cfg_xfer(false, func, site, position, device, data);
}

int sys_cfg_write(enum sys_cfg_func func, unsigned site, unsigned position,
		  unsigned device, uint32_t data)
{
	return sys_cfg_xfer(true, func, site, position, device, &data);
}

unsigned int sys_cfg_site(unsigned int site)
{
	return sysreg ? sys_cfg_resolve_site(&sysreg_io, site) : site;
}
