/*
 * The power back ends behind the front end drivers/power.c, which
 * implements include/arch/power.h (as drivers/timer.c does for the timers):
 * each probe looks for its hardware in the DT and, given the kernel's
 * rails, fills a struct power_ops. No back end: WFI only.
 *
 * A probe returns 1 if it took over, 0 if its hardware is not in the DT,
 * -1 if it is but cannot be used (it said why: the board stays WFI-only).
 */
#ifndef DRIVERS_POWER_H
#define DRIVERS_POWER_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/power.h"

struct fdt;

/* Rails a back end maps: as many as the kernel has (IDLE_MAX_RAILS). */
#define POWER_MAX_RAILS 8

struct power_ops {
	const char *name;		/* platform_power_name() */
	bool warmboot_default;		/* warm boot on from boot (bootarg warmboot= may change it) */
	/*
	 * The calling CPU enters a domain state (its rail may lose power), IRQs
	 * masked; returns after the wake-up. @warm: warm boot is on.
	 */
	void (*domain_state)(int cpu, int rail, bool last_man, bool warm);
	/* Last man, rail lock held, warm boot on and the kernel lets the power go; NULL: nothing to do. */
	void (*rail_down)(int rail);
	/* First man, rail lock held; NULL: nothing to do. */
	void (*rail_up)(int rail);
};

int power_tc2_probe(const struct fdt *fdt, const struct power_rail *rails, int nr_rails, struct power_ops *ops);
int power_psci_probe(const struct fdt *fdt, const struct power_rail *rails, int nr_rails, struct power_ops *ops);

/*
 * NULL if the CPU with MPIDR affinity @hwid may be released; else why not
 * (TC2: its cluster's CCI-400 port is off and could not be enabled, so it
 * would run non-coherent). Asked by smp_boot_secondaries().
 */
const char *power_cpu_refused(uint32_t hwid);

/* For the back ends: one cpu_suspend() on this CPU returned @ret (0: the power was cut). */
void power_warm_account(int ret);
/* The firmware refused a power-down: warm boot goes off (domain states stay modelled, in WFI). */
void power_warmboot_refused(void);

#endif
