/*
 * Platform power hooks (include/arch/power.h): the front end. It picks a
 * back end from the DT and dispatches through its struct power_ops
 * (include/drivers/power.h), as drivers/timer.c does for the timers:
 *
 *   "tc2-spc" (drivers/power_tc2.c) when the DT has a TC2 SPC
 *     ("arm,vexpress-scc") and an "arm,cci-400": real cluster power-off;
 *   "psci" (drivers/power_psci.c) with a PSCI node and enable-method
 *     "psci" cpus (QEMU virt: qemu-tc2): CPU_SUSPEND;
 *   "wfi-only" otherwise (QEMU vexpress, CoreTile A9x4): every idle is
 *     dsb + wfi, the rail hooks do nothing (the kernel's rail state machine
 *     still accounts the modelled state).
 *
 * Every back end gets the kernel's rails (platform_power_init()), so each
 * maps a rail to what powers it without numbering the DT's rails itself.
 * The front end owns the warm-boot switch and its counters.
 */
#include "arch/power.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/arm.h"
#include "arch/barrier.h"
#include "drivers/power.h"
#include "kernel/lib/printk.h"

static struct power_ops power;	/* zero (no name): wfi-only */

/*
 * Warm boot on: the SPC may cut a cluster's power (tc2-spc) or domain
 * states are PSCI power-downs (psci). Off: the last man leaves coherency
 * and the cluster sits in WFI (the modelled state is still accounted).
 * Written with every other CPU possibly down: readers use READ_ONCE.
 */
static volatile bool warmboot_on;
/* Per CPU, written by that CPU: cpu_suspend calls, of which resumed after a power loss / returned. */
static struct { uint64_t entered, resumed, returned; } warm_stats[CONFIG_NR_CPUS];

void power_warm_account(int ret)
{
	int cpu = (int)read_tpidrprw();

	warm_stats[cpu].entered++;
	if (ret == 0)
		warm_stats[cpu].resumed++;
	else
		warm_stats[cpu].returned++;
}

void platform_warmboot_stats(uint64_t *entered, uint64_t *resumed, uint64_t *returned)
{
	*entered = *resumed = *returned = 0;
	for (int cpu = 0; cpu < CONFIG_NR_CPUS; cpu++) {
		*entered += READ_ONCE(warm_stats[cpu].entered);
		*resumed += READ_ONCE(warm_stats[cpu].resumed);
		*returned += READ_ONCE(warm_stats[cpu].returned);
	}
}

void power_warmboot_refused(void)
{
	warmboot_on = false;
}

void platform_power_init(const struct fdt *fdt, const struct power_rail *rails, int nr_rails)
{
	int rc = power_tc2_probe(fdt, rails, nr_rails, &power);

	if (rc == 0)
		rc = power_psci_probe(fdt, rails, nr_rails, &power);
	if (rc <= 0)
		power = (struct power_ops){ .name = NULL };
	if (rc == 0)
		kprintf("power: wfi-only (no TC2 SPC and CCI-400 in the device tree)\n");
	warmboot_on = power.warmboot_default;
}

const char *platform_power_name(void)
{
	return power.name ? power.name : "wfi-only";
}

int platform_warmboot_set(bool on)
{
	if (!power.name)
		return -1;
	warmboot_on = on;
	dsb();
	return 0;
}

int platform_warmboot_get(void)
{
	return !power.name ? -1 : READ_ONCE(warmboot_on);
}

bool platform_domain_stops_timer(void)
{
	return READ_ONCE(warmboot_on);
}

void platform_cluster_power_down(int rail, bool may_lose_power)
{
	/* No broadcast timer: the kernel says whether a pending local timer keeps the rail powered. */
	if (power.rail_down && may_lose_power && READ_ONCE(warmboot_on))
		power.rail_down(rail);
}

void platform_cluster_power_up(int rail)
{
	if (power.rail_up)
		power.rail_up(rail);
}

void platform_cpu_power_down(int cpu, int rail, bool domain, bool last_man)
{
	if (domain && power.domain_state) {
		power.domain_state(cpu, rail, last_man, READ_ONCE(warmboot_on));
		return;
	}
	/* WFI-only, or a shallow state: IRQs are masked, a pending one ends the WFI. */
	wfi();
}
