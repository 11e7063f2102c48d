/*
 * Hardware energy meters (TC2: SYS_CFG function 13, one 64-bit uJ counter
 * per cluster split over two 32-bit devices; function 12: instantaneous
 * power, uW). Where the meters are missing or report errors (QEMU), the
 * driver says so once on the console and energy_meter_available() is false:
 * the energy model is used instead.
 *
 * energy_meter_combine() and energy_meter_delta() are the portable,
 * host-tested parts: assembling a 64-bit value read as two halves that may
 * tear (the low word wrapping between the reads) and differencing counters.
 */
#ifndef KERNEL_ENERGY_METER_H
#define KERNEL_ENERGY_METER_H

#include <stdbool.h>
#include <stdint.h>

struct fdt;

#define ENERGY_METER_MAX 4

/*
 * A 64-bit counter read as halves: hi1, then lo, then hi2 (and lo2, a second
 * read of the low word after hi2). If hi1 == hi2 the low word did not wrap
 * in between and the value is hi1:lo; otherwise it is hi2:lo2.
 */
uint64_t energy_meter_combine(uint32_t hi1, uint32_t lo, uint32_t hi2, uint32_t lo2);
/* now - before for a monotonic counter; 0 if it went backwards (reset). */
uint64_t energy_meter_delta(uint64_t before, uint64_t now);

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
