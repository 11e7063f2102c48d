/*
 * PSCI client (function IDs of PSCI 0.2, SMC32 calling convention). Calls
 * take r0 = function, r1-r3 = arguments and return r0.
 */
#include "drivers/psci.h"

#include <string.h>

#include "kernel/lib/fdt.h"

#define PSCI_0_2_VERSION      0x84000000u
#define PSCI_0_2_CPU_SUSPEND  0x84000001u
#define PSCI_0_2_CPU_OFF      0x84000002u
#define PSCI_0_2_CPU_ON       0x84000003u
#define PSCI_0_2_AFFINITY_INFO 0x84000004u
#define PSCI_0_2_SYSTEM_OFF   0x84000008u
#define PSCI_0_2_SYSTEM_RESET 0x84000009u

enum psci_method { PSCI_NONE, PSCI_HVC, PSCI_SMC };
static enum psci_method method;

static int32_t psci_call(uint32_t fn, uint32_t a1, uint32_t a2, uint32_t a3)
{
	register uint32_t r0 __asm__("r0") = fn;
	register uint32_t r1 __asm__("r1") = a1;
	register uint32_t r2 __asm__("r2") = a2;
	register uint32_t r3 __asm__("r3") = a3;

	if (method == PSCI_HVC)
		__asm__ volatile(".arch_extension virt\n\thvc #0"
				 : "+r"(r0), "+r"(r1), "+r"(r2), "+r"(r3) :: "memory");
	else if (method == PSCI_SMC)
		__asm__ volatile(".arch_extension sec\n\tsmc #0"
				 : "+r"(r0), "+r"(r1), "+r"(r2), "+r"(r3) :: "memory");
	else
		return PSCI_NOT_SUPPORTED;
	return (int32_t)r0;
}

int psci_init_dt(const struct fdt *fdt)
{
	int node = fdt_find_compatible(fdt, -1, "arm,psci-0.2");
	const char *m;

	if (node < 0)
		node = fdt_find_compatible(fdt, -1, "arm,psci-1.0");
	if (node < 0)
		return -1;
	m = fdt_prop_string(fdt, node, "method");
	if (m && strcmp(m, "hvc") == 0)
		method = PSCI_HVC;
	else if (m && strcmp(m, "smc") == 0)
		method = PSCI_SMC;
	else
		return -1;
	return 0;
}

void psci_fallback_hvc(void)
{
	if (method == PSCI_NONE)
		method = PSCI_HVC;
}

bool psci_present(void)
{
	return method != PSCI_NONE;
}

uint32_t psci_version(void)
{
	return (uint32_t)psci_call(PSCI_0_2_VERSION, 0, 0, 0);
}

int psci_cpu_on(uint32_t mpidr, uint32_t entry, uint32_t context)
{
	return psci_call(PSCI_0_2_CPU_ON, mpidr, entry, context);
}

int psci_cpu_suspend(uint32_t power_state, uint32_t entry, uint32_t context)
{
	return psci_call(PSCI_0_2_CPU_SUSPEND, power_state, entry, context);
}

int psci_affinity_info(uint32_t target_affinity, uint32_t lowest_level)
{
	return psci_call(PSCI_0_2_AFFINITY_INFO, target_affinity, lowest_level, 0);
}

int psci_cpu_off(void)
{
	return psci_call(PSCI_0_2_CPU_OFF, 0, 0, 0);
}

void psci_system_off(void)
{
	psci_call(PSCI_0_2_SYSTEM_OFF, 0, 0, 0);
}

void psci_system_reset(void)
{
	psci_call(PSCI_0_2_SYSTEM_RESET, 0, 0, 0);
}

const char *psci_strerror(int err)
{
	switch (err) {
	case PSCI_SUCCESS: return "success";
	case PSCI_NOT_SUPPORTED: return "not supported";
	case PSCI_INVALID_PARAMS: return "invalid parameters";
	case PSCI_DENIED: return "denied";
	case PSCI_ALREADY_ON: return "already on";
	case PSCI_ON_PENDING: return "on pending";
	default: return "unknown PSCI error";
	}
}
