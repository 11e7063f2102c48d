/* PSCI 0.2+ client over HVC or SMC, as named by the DT's /psci "method". */
#ifndef DRIVERS_PSCI_H
#define DRIVERS_PSCI_H

#include <stdbool.h>
#include <stdint.h>

struct fdt;

#define PSCI_SUCCESS 0
#define PSCI_NOT_SUPPORTED (-1)
#define PSCI_INVALID_PARAMS (-2)
#define PSCI_DENIED (-3)
#define PSCI_ALREADY_ON (-4)
#define PSCI_ON_PENDING (-5)

int psci_init_dt(const struct fdt *fdt);
bool psci_present(void);
uint32_t psci_version(void);
int psci_cpu_on(uint32_t mpidr, uint32_t entry, uint32_t context);
/*
 * CPU_SUSPEND (PSCI 0.2 original power_state format: [15:0] state ID,
 * [16] type 1 = power-down, [25:24] affinity level 0 core / 1 cluster).
 * A power-down that happens does not return: the CPU restarts at @entry
 * (physical, MMU off) with r0 = @context. A return of PSCI_SUCCESS means
 * it woke without losing state (a standby, or a pending wake-up).
 */
#define PSCI_POWER_STATE(type_pd, level, id) \
	(((uint32_t)(type_pd) << 16) | ((uint32_t)(level) << 24) | ((uint32_t)(id) & 0xffffu))
#define PSCI_PD_CORE PSCI_POWER_STATE(1, 0, 0)
#define PSCI_PD_CLUSTER PSCI_POWER_STATE(1, 1, 0)
int psci_cpu_suspend(uint32_t power_state, uint32_t entry, uint32_t context);
/* AFFINITY_INFO: PSCI_AFF_ON, _OFF, _ON_PENDING, or a negative error. */
#define PSCI_AFF_ON 0
#define PSCI_AFF_OFF 1
#define PSCI_AFF_ON_PENDING 2
int psci_affinity_info(uint32_t target_affinity, uint32_t lowest_level);
int psci_cpu_off(void);
void psci_system_off(void);
/* The board's fixed conduit (board.mk BOARD_EARLY_PSCI) when the DT named none: for panics. */
void psci_fallback_hvc(void);
void psci_system_reset(void);
const char *psci_strerror(int err);

#endif
