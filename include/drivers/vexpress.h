/*
 * Versatile Express motherboard system registers: SYS_FLAGS (secondary
 * release), SYS_24MHZ, and the SYS_CFG bridge to the board controllers
 * (shutdown, reboot, oscillators, and on TC2 the energy/power meters).
 */
#ifndef DRIVERS_VEXPRESS_H
#define DRIVERS_VEXPRESS_H

#include <stdbool.h>
#include <stdint.h>

struct fdt;

enum sys_cfg_func {
	SYS_CFG_OSC = 1,
	SYS_CFG_VOLT = 2,
	SYS_CFG_AMP = 3,
	SYS_CFG_TEMP = 4,
	SYS_CFG_SHUTDOWN = 8,
	SYS_CFG_REBOOT = 9,
	SYS_CFG_POWER = 12,
	SYS_CFG_ENERGY = 13,
};

enum sys_cfg_err {
	SYS_CFG_OK = 0,
	SYS_CFG_ENODEV = -1,	/* no sysregs in the DT */
	SYS_CFG_ETIMEDOUT = -2,	/* controller never set "complete" */
	SYS_CFG_EFAULT = -3,	/* controller reported an error */
	SYS_CFG_EBUSY = -4,	/* START of an earlier transaction still set, or (IRQs masked) another user */
	SYS_CFG_EINVAL = -5,	/* a field out of its SYS_CFGCTRL range */
};

int vexpress_sysreg_init_dt(const struct fdt *fdt);
bool vexpress_sysreg_present(void);
/* The board's fixed sysregs (board.mk BOARD_EARLY_SYSREG) when the DT's were not found: for panics. */
void vexpress_sysreg_fallback(uintptr_t base);
/* SYS_24MHZ: a free-running 24 MHz counter (32 bits). */
uint32_t vexpress_read_24mhz(void);
/* Start a SYS_CFG write of @func (site 0, device 0, data 0) and spin a bounded while: no clock, no lock. */
void sys_cfg_write_nowait(enum sys_cfg_func func);
/* Make secondaries waiting in the boot stub jump to @entry. */
void vexpress_set_flags(uint32_t entry);
/*
 * One SYS_CFG transaction (drivers/sys_cfg.c), serialised between CPUs.
 * From a task with IRQs enabled the wait for the lock and for the
 * controller sleeps in 100 us steps; with IRQs masked (an interrupt handler,
 * boot) it polls, and a lock held by someone else is SYS_CFG_EBUSY at once
 * (its holder may be the task this CPU interrupted). @site: 0..3 or
 * SYS_CFG_SITE_MASTER (include/drivers/sys_cfg.h).
 */
int sys_cfg_read(enum sys_cfg_func func, unsigned site, unsigned position,
		 unsigned device, uint32_t *data);
int sys_cfg_write(enum sys_cfg_func func, unsigned site, unsigned position,
		  unsigned device, uint32_t data);
const char *sys_cfg_strerror(int err);
/* @site as a transaction uses it: SYS_CFG_SITE_MASTER resolved through SYS_MISC. */
unsigned int sys_cfg_site(unsigned int site);

#endif
