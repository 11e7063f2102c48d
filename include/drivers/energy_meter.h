/*
 * A 64-bit meter counter read as two 32-bit halves that may tear (the low
 * word wrapping between the reads): the portable part of the meter drivers
 * (drivers/energy_meter.c), compiled into the host library for its test.
 */
#ifndef DRIVERS_ENERGY_METER_H
#define DRIVERS_ENERGY_METER_H

#include <stdint.h>

/*
 * A 64-bit counter read as halves: hi1, then lo, then hi2 (and lo2, a second
 * read of the low word after hi2). If hi1 == hi2 the low word did not wrap
 * in between and the value is hi1:lo; otherwise it is hi2:lo2.
 */
uint64_t energy_meter_combine(uint32_t hi1, uint32_t lo, uint32_t hi2, uint32_t lo2);

#endif
