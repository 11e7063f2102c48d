/*
 * Assembling an energy counter read as two 32-bit halves
 * (include/drivers/energy_meter.h): plain C, host-tested. The SYS_CFG
 * driver is drivers/vexpress_energy.c.
 *
 * Why the read order hi1, lo, hi2 (then lo2 if needed) is enough: the low
 * word can wrap at most once between two reads that are microseconds apart
 * (a wrap is 2^32 uJ = 4295 J; doing that twice within one SYS_CFG
 * transaction would take megawatts). So
 *   - hi1 == hi2: no wrap happened between the reads of hi1 and hi2, so lo
 *     (read in between) belongs to hi1;
 *   - hi1 != hi2: a wrap happened somewhere between them, possibly just
 *     before or just after lo was read, so lo cannot be trusted; lo2, read
 *     after hi2, belongs to hi2 as long as no second wrap follows the read
 *     of hi2 before lo2 is read - the same physically impossible case.
 * "hi changing twice" is therefore outside the contract: the function
 * trusts hi2:lo2 whenever the high words differ.
 */
#include "drivers/energy_meter.h"

uint64_t energy_meter_combine(uint32_t hi1, uint32_t lo, uint32_t hi2, uint32_t lo2)
{
	if (hi1 == hi2)
		return ((uint64_t)hi1 << 32) | lo;
	return ((uint64_t)hi2 << 32) | lo2;
}
