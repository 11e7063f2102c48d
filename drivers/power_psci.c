/*
 * PSCI power back end (include/drivers/power.h): a PSCI node and cpus with
 * enable-method "psci" (QEMU virt: qemu-tc2).
 *
 * psci mode (a PSCI node, cpus with enable-method "psci", no SPC/CCI): with
 * warm boot on, a domain state is PSCI CPU_SUSPEND(cluster power-down,
 * cpu_resume), or the core power-down if the firmware refuses affinity
 * levels; the firmware does the cache and coherency work.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "arch/arm.h"
#include "arch/power.h"
#include "arch/smp.h"
#include "arch/suspend.h"
#include "drivers/power.h"
#include "drivers/psci.h"
#include "kernel/lib/fdt.h"
#include "kernel/lib/printk.h"

static bool psci_error_seen;

/* cpu_suspend's finisher in psci mode: the firmware does the caches and coherency. */
static int psci_finisher(uint32_t power_state)
{
	int err = psci_cpu_suspend(power_state, (uint32_t)(uintptr_t)cpu_resume, 0);

	/* Returned: woke without losing state (SUCCESS), or refused. */
	return err == PSCI_SUCCESS ? 1 : err;
}

/*
 * The power_state asked for in a domain state: the cluster power-down
 * (original format, affinity level 1); a firmware that refuses affinity
 * levels (QEMU virt) gets the core power-down instead (level 0), said once.
 */
static uint32_t psci_state[POWER_MAX_RAILS];

/*
 * Each rail's power_state: its power domain's first domain-idle-states node's
 * "arm,psci-suspend-param" (the standard binding), else PSCI_PD_CLUSTER.
 */
static void psci_states_init(const struct fdt *fdt, const struct power_rail *rails, int n)
{
	for (int r = 0; r < POWER_MAX_RAILS; r++)
		psci_state[r] = PSCI_PD_CLUSTER;
	for (int r = 0; r < n && r < POWER_MAX_RAILS; r++) {
		int node = rails[r].domain_node, st;
		uint32_t ph, param;

		if (node < 0 || fdt_prop_cell(fdt, node, "domain-idle-states", 0, &ph) != 0)
			continue;
		st = fdt_node_by_phandle(fdt, ph);
		if (st >= 0 && fdt_prop_u32(fdt, st, "arm,psci-suspend-param", &param) == 0)
			psci_state[r] = param;
	}
}

static void psci_domain_idle(int rail)
{
	uint32_t state = rail >= 0 && rail < POWER_MAX_RAILS ? psci_state[rail] : PSCI_PD_CLUSTER;
	int ret;

	cpu_pm_save();
	ret = cpu_suspend(state, psci_finisher);
	power_warm_account(ret);
	if (ret == 0) {
		cpu_pm_resume();
		return;
	}
	if (ret == PSCI_INVALID_PARAMS && state == PSCI_PD_CLUSTER) {
		if (rail >= 0 && rail < POWER_MAX_RAILS &&
		    __sync_bool_compare_and_swap(&psci_state[rail], PSCI_PD_CLUSTER, PSCI_PD_CORE))
			kprintf("power: psci: CPU_SUSPEND(0x%08x) failed: %s; using the core power-down state 0x%08x\n",
				(unsigned)state, psci_strerror(ret), (unsigned)PSCI_PD_CORE);
		return;
	}
	if (ret < 0) {
		/* Refused: say so once, and stop asking (the domain state stays modelled, in WFI). */
		power_warmboot_refused();
		if (!psci_error_seen) {
			psci_error_seen = true;
			kprintf("power: psci: CPU_SUSPEND(0x%08x) failed: %s; warm boot off\n", (unsigned)state,
				psci_strerror(ret));
		}
	}
}

/* A domain state: CPU_SUSPEND with warm boot on, else WFI (the state stays modelled). */
static void psci_domain_state(int cpu, int rail, bool last_man, bool warm)
{
	(void)cpu;
	(void)last_man;	/* the firmware is the one to know the last man */
	if (warm)
		psci_domain_idle(rail);
	else
		wfi();
}

/* All CPUs' cpu nodes say enable-method = "psci" (the DT's choice of firmware interface). */
static bool cpus_use_psci(void)
{
	int n = smp_nr_cpus();

	for (int i = 0; i < n; i++) {
		const char *m = smp_cpu(i)->enable_method;

		if (!m || strcmp(m, "psci") != 0)
			return false;
	}
	return n > 0;
}

int power_psci_probe(const struct fdt *fdt, const struct power_rail *rails, int nr, struct power_ops *ops)
{
	if (!psci_present() || !cpus_use_psci())
		return 0;
	psci_states_init(fdt, rails, nr);
	*ops = (struct power_ops){
		.name = "psci",
		.domain_state = psci_domain_state,
	};
	kprintf("power: psci: domain states may use CPU_SUSPEND (warm boot off: `idle warmboot on`)\n");
	return 1;
}
