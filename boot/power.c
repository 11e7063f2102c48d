/*
 * System power-off and reboot: PSCI SYSTEM_OFF/RESET where the DT has a
 * PSCI node, else the Versatile Express SYS_CFG shutdown (8) / reboot (9)
 * functions. QEMU exits with status 0 on either power-off.
 */
#include "boot/boot.h"

#include "arch/arm.h"
#include "drivers/console.h"
#include "drivers/psci.h"
#include "drivers/vexpress.h"
#include "drivers/timer.h"
#include "kernel/lib/printk.h"
#include "kernel/time/time.h"

#define POWER_SETTLE_NS (100 * NSEC_PER_MSEC)
#define EMERGENCY_SETTLE_SPINS 20000000

static void power_request(bool off)
{
	kprintf("%s\n", off ? "Powering off." : "Rebooting.");
	irq_disable();
	if (psci_present()) {
		if (off)
			psci_system_off();
		else
			psci_system_reset();
		kprintf("power: PSCI SYSTEM_%s returned\n", off ? "OFF" : "RESET");
	}
	if (vexpress_sysreg_present()) {
		int err = sys_cfg_write(off ? SYS_CFG_SHUTDOWN : SYS_CFG_REBOOT, 0, 0, 0, 0);
		uint64_t until = clock_ns() + POWER_SETTLE_NS;

		while (!err && clock_ns() < until)
			;	/* the motherboard acts a little after the transfer completes */
		if (err)
			kprintf("power: SYS_CFG %s failed: %s\n", off ? "shutdown" : "reboot",
				sys_cfg_strerror(err));
	}
	kprintf("power: no way to %s this board; halting\n", off ? "power off" : "reboot");
}

void platform_emergency_power(bool off)
{
#ifdef BOARD_EARLY_PSCI_HVC
	psci_fallback_hvc();
#endif
	if (psci_present()) {
		if (off)
			psci_system_off();
		else
			psci_system_reset();
	}
#ifdef BOARD_EARLY_SYSREG
	vexpress_sysreg_fallback(BOARD_EARLY_SYSREG);
#endif
	if (vexpress_sysreg_present()) {
		sys_cfg_write_nowait(off ? SYS_CFG_SHUTDOWN : SYS_CFG_REBOOT);
		for (volatile int spin = 0; spin < EMERGENCY_SETTLE_SPINS; spin++)
			;	/* no clock here: a bounded wait for the motherboard to act */
	}
}

void platform_poweroff(void)
{
	power_request(true);
	cpu_park();
}

void platform_reboot(void)
{
	power_request(false);
	cpu_park();
}
