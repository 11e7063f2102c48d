/*
 * How far a set/way flush goes (ARMv7 CLIDR, ARM ARM B4.1.20): plain C, so
 * host tests check it (tests/host/test_boardquirks.c).
 *
 * CLIDR[26:24] LoC (level of coherency), [23:21] LoUIS (level of
 * unification, inner shareable). The result is the first level NOT to
 * flush, times two (the unit CSSELR's level field uses): flush levels
 * 0 .. result/2 - 1.
 *
 * Cortex-A9 erratum 643719 (ARM's A9 errata notice; Linux
 * CONFIG_ARM_ERRATA_643719 in arch/arm/mm/cache-v7.S, v7_flush_dcache_louis):
 * on r0pX parts LoUIS reads as 0 although the L1 must be flushed to leave
 * coherency, which would make the "this CPU's L1" flush a no-op. Like Linux,
 * a LoUIS of 0 on a Cortex-A9 r0pX is taken as 1.
 */
#ifndef ARCH_CACHE_LEVELS_H
#define ARCH_CACHE_LEVELS_H

#include <stdbool.h>
#include <stdint.h>

#define CLIDR_LOC_SHIFT   24
#define CLIDR_LOUIS_SHIFT 21
/* MIDR >> 4 of a Cortex-A9 r0pX (implementer 0x41, variant 0, part 0xc09); Linux uses the same mask. */
#define MIDR_A9_R0_SHIFTED 0x0410fc09u

static inline uint32_t v7_flush_levels2(uint32_t clidr, uint32_t midr, bool all)
{
	uint32_t levels2 = (clidr >> ((all ? CLIDR_LOC_SHIFT : CLIDR_LOUIS_SHIFT) - 1)) & 0xeu;

	if (!all && levels2 == 0 && (midr >> 4) == MIDR_A9_R0_SHIFTED)
		levels2 = 2;	/* erratum 643719: flush L1 */
	return levels2;
}

#endif
