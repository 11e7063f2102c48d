/*
 * Hardware energy meters, if the platform has them (TC2: SYS_CFG function
 * 13, one 64-bit uJ counter per cluster; function 12: instantaneous power,
 * uW; drivers/vexpress_energy.c). Where the meters are missing or report
 * errors (QEMU, the host), energy_meter_available() is false and the kernel
 * uses its energy model instead (the driver says why once on the console).
 *
 *   energy_meter_init_dt(fdt)  find and probe the meters once, at boot.
 *   energy_meter_count/cluster/label  meter i measures cluster
 *                              energy_meter_cluster(i) ("A15", "A7").
 *   energy_meter_read_uj/_uw   a monotonic uJ counter (may reset: the
 *                              kernel differences with energy_meter_delta())
 *                              / instantaneous uW; 0 or a port error code.
 *                              Any CPU after init; from a task they may
 *                              sleep (TC2: 100 us steps while the board
 *                              controller answers); with IRQs masked they
 *                              poll, and fail (busy) rather than wait for
 *                              another user.
 */
#ifndef ARCH_ENERGY_METER_H
#define ARCH_ENERGY_METER_H

#include <stdbool.h>
#include <stdint.h>

struct fdt;

#define ENERGY_METER_MAX 4

/* now - before for a monotonic counter; 0 if it went backwards (reset). */
static inline uint64_t energy_meter_delta(uint64_t before, uint64_t now)
{
	return now >= before ? now - before : 0;
}

/* Find arm,vexpress-energy / -power nodes in the DT; probe each once. */
int energy_meter_init_dt(const struct fdt *fdt);
bool energy_meter_available(void);
int energy_meter_count(void);
/* Which cluster meter @i measures, and its label ("A15", "A7"). */
int energy_meter_cluster(int i);
const char *energy_meter_label(int i);
/* Total energy of meter @i in uJ; 0 on success, a SYS_CFG error otherwise. */
int energy_meter_read_uj(int i, uint64_t *uj);
/* Instantaneous power of cluster meter @i in uW. */
int energy_meter_read_uw(int i, uint32_t *uw);

#endif
