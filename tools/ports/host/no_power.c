/*
 * The power and energy-meter side of the arch interface (include/arch/power.h,
 * include/arch/energy_meter.h) for the two ports that have no power hardware:
 * the host port (tools/ports/host/host_arch.c) and the simulator (tools/schedsim/).
 * Rails and residencies stay the kernel's to account; nothing here loses
 * power, no warm boot, no meters. Each port keeps its own
 * platform_cpu_power_down() (the simulator's WFI waits for an event) and
 * platform_power_name().
 */
#include <stdbool.h>
#include <stdint.h>

#include "arch/energy_meter.h"
#include "arch/power.h"

void platform_power_init(const struct fdt *fdt, const struct power_rail *rails, int nr_rails)
{
	(void)fdt;
	(void)rails;
	(void)nr_rails;
}

void platform_cluster_power_down(int rail, bool may_lose_power)
{
	(void)rail;
	(void)may_lose_power;
}

bool platform_domain_stops_timer(void)
{
	return false;
}

void platform_cluster_power_up(int rail)
{
	(void)rail;
}

int platform_warmboot_set(bool on)
{
	(void)on;
	return -1;
}

int platform_warmboot_get(void)
{
	return -1;
}

void platform_warmboot_stats(uint64_t *entered, uint64_t *resumed, uint64_t *returned)
{
	*entered = *resumed = *returned = 0;
}

int platform_resume_test(int rounds, bool psci)
{
	(void)rounds;
	(void)psci;
	return -1;
}

int energy_meter_init_dt(const struct fdt *fdt)
{
	(void)fdt;
	return 0;
}

bool energy_meter_available(void)
{
	return false;
}

int energy_meter_count(void)
{
	return 0;
}

int energy_meter_cluster(int i)
{
	(void)i;
	return -1;
}

const char *energy_meter_label(int i)
{
	(void)i;
	return "";
}

int energy_meter_read_uj(int i, uint64_t *uj)
{
	(void)i;
	*uj = 0;
	return -1;
}

int energy_meter_read_uw(int i, uint32_t *uw)
{
	(void)i;
	*uw = 0;
	return -1;
}
