/*
 * Small board decisions, plain C, checked without a board:
 * - the set/way flush limit from CLIDR, with Cortex-A9 erratum 643719
 *   (LoUIS reads 0 on r0pX: Linux's v7_flush_dcache_louis takes it as 1);
 * - the A9 timer clock: the DT's value (QEMU's) against the measurement
 *   on the 24 MHz counter (include/drivers/clock_check.h);
 * - the entry state: HYP entry (U-Boot's NONSEC/VIRT), the GIC's view,
 *   and the TC2 warm-boot refusal it implies (include/drivers/entry_state.h).
 */
#include <stdbool.h>
#include <stdint.h>

#include "ktest.h"
#include "arch/cache_levels.h"
#include "drivers/clock_check.h"
#include "drivers/entry_state.h"

/* CLIDR values: L1 separate I/D (Ctype1 = 3), L2 unified (Ctype2 = 4). */
#define CLIDR(loc, louis) (((uint32_t)(loc) << 24) | ((uint32_t)(louis) << 21) | (4u << 3) | 3u)
#define MIDR_A9_R0P1 0x410fc091u
#define MIDR_A9_R2P0 0x412fc090u
#define MIDR_A15_R2P2 0x412fc0f2u

KT_CASE(flush_levels_from_clidr)
{
	/* A15: LoUIS 1 (L1), LoC 2 (L1 + L2). */
	KT_ASSERT_EQ(v7_flush_levels2(CLIDR(2, 1), MIDR_A15_R2P2, false), 2);
	KT_ASSERT_EQ(v7_flush_levels2(CLIDR(2, 1), MIDR_A15_R2P2, true), 4);
	/* A9 r2p0 reports LoUIS 1 itself. */
	KT_ASSERT_EQ(v7_flush_levels2(CLIDR(1, 1), MIDR_A9_R2P0, false), 2);
}

KT_CASE(erratum_643719_a9_r0_louis_zero)
{
	/* A9 r0p1: LoUIS reads 0; without the workaround the L1 flush does nothing. */
	KT_ASSERT_EQ(v7_flush_levels2(CLIDR(1, 0), MIDR_A9_R0P1, false), 2);
	/* Only LoUIS, only A9 r0pX: LoC and other cores keep what CLIDR says. */
	KT_ASSERT_EQ(v7_flush_levels2(CLIDR(0, 0), MIDR_A9_R0P1, true), 0);
	KT_ASSERT_EQ(v7_flush_levels2(CLIDR(1, 0), MIDR_A9_R2P0, false), 0);
	KT_ASSERT_EQ(v7_flush_levels2(CLIDR(1, 0), MIDR_A15_R2P2, false), 0);
}

KT_CASE(a9_clock_dt_kept_when_measurement_agrees)
{
	uint32_t hz = 0;

	/* QEMU: the DT's 100 MHz and a measurement rounded to 10 kHz. */
	KT_ASSERT_EQ(clock_choose(true, 100000000u, true, 100010000u, &hz), CLOCK_FROM_DT);
	KT_ASSERT_EQ(hz, 100000000u);
}

KT_CASE(a9_clock_measurement_wins_when_the_board_differs)
{
	uint32_t hz = 0;

	/* A CoreTile whose PERIPHCLK is not QEMU's 100 MHz. */
	KT_ASSERT_EQ(clock_choose(true, 100000000u, true, 200000000u, &hz), CLOCK_MEASURED_OVER_DT);
	KT_ASSERT_EQ(hz, 200000000u);
	KT_ASSERT_EQ(clock_choose(true, 100000000u, true, 98000000u, &hz), CLOCK_MEASURED_OVER_DT);
	KT_ASSERT_EQ(hz, 98000000u);
}

KT_CASE(a9_clock_sources_missing)
{
	uint32_t hz = 0;

	KT_ASSERT_EQ(clock_choose(false, 0, true, 210000000u, &hz), CLOCK_MEASURED);
	KT_ASSERT_EQ(hz, 210000000u);
	KT_ASSERT_EQ(clock_choose(true, 100000000u, false, 0, &hz), CLOCK_FROM_DT);
	KT_ASSERT_EQ(hz, 100000000u);
	KT_ASSERT_EQ(clock_choose(false, 0, false, 0, &hz), CLOCK_NONE);
	/* A measurement of 0 (a counter that does not run) is no measurement. */
	KT_ASSERT_EQ(clock_choose(false, 0, true, 0, &hz), CLOCK_NONE);
}

KT_CASE(entry_in_hyp_is_nonsecure_and_refuses_tc2_warm_boot)
{
	/* U-Boot vexpress_ca15_tc2 with ARMV7_NONSEC/VIRT: HYP, IRQs masked. */
	struct entry_state s = entry_state_decide(0x1c0u | ENTRY_MODE_HYP, true, false);

	KT_ASSERT(s.hyp);
	KT_ASSERT_EQ(s.world, ENTRY_NONSECURE);
	KT_ASSERT(entry_state_tc2_refusal(s) && strstr(entry_state_tc2_refusal(s), "HYP mode"));
	/* HYP decides even if a GIC probe disagreed. */
	s = entry_state_decide(ENTRY_MODE_HYP, true, true);
	KT_ASSERT_EQ(s.world, ENTRY_NONSECURE);
}

KT_CASE(entry_in_svc_uses_the_gic_view)
{
	/* The boot monitor: Secure SVC, group registers writable. */
	struct entry_state s = entry_state_decide(0x1d3u, true, true);

	KT_ASSERT(!s.hyp);
	KT_ASSERT_EQ(s.world, ENTRY_SECURE);
	KT_ASSERT(entry_state_tc2_refusal(s) == NULL);
	/* Non-secure SVC (a loader that dropped HYP itself): group registers RAZ/WI. */
	s = entry_state_decide(0x1d3u, true, false);
	KT_ASSERT_EQ(s.world, ENTRY_NONSECURE);
	KT_ASSERT(entry_state_tc2_refusal(s) && strstr(entry_state_tc2_refusal(s), "non-secure"));
	/* A GIC without Security Extensions: one world, nothing to refuse. */
	s = entry_state_decide(0x1d3u, false, false);
	KT_ASSERT_EQ(s.world, ENTRY_NO_SECURITY_EXT);
	KT_ASSERT(entry_state_tc2_refusal(s) == NULL);
}
