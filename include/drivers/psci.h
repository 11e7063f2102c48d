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
int psci_cpu_off(void);
void psci_system_off(void);
void psci_system_reset(void);
const char *psci_strerror(int err);

#endif
