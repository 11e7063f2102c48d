/*
 * Which rate to believe for a timer clock: the DT's, or the one measured
 * against a reference counter (drivers/a9_timer.c; plain C so host tests
 * check it: tests/host/test_boardquirks.c).
 *
 * The A9x4's DT (boards/vexpress-a9) serves QEMU and the real CoreTile, and
 * its PERIPHCLK value is QEMU's (100 MHz); a real board's depends on its
 * oscillator settings (board.txt), and a wrong rate scales every timeout
 * and benchmark. So a board with the motherboard's 24 MHz counter always
 * measures: the DT's value is kept when the measurement agrees with it
 * within CLOCK_AGREE_PPM (it is exact, the measurement is not), else the
 * measurement is used and said in one boot line.
 */
#ifndef DRIVERS_CLOCK_CHECK_H
#define DRIVERS_CLOCK_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#define CLOCK_AGREE_PPM 10000u	/* 1 %: far above the measurement's error, far below a wrong setting */

enum clock_source { CLOCK_FROM_DT, CLOCK_MEASURED, CLOCK_MEASURED_OVER_DT, CLOCK_NONE };

static inline enum clock_source clock_choose(bool have_dt, uint32_t dt_hz, bool have_meas, uint32_t meas_hz,
					     uint32_t *hz)
{
	uint64_t diff;

	if (have_meas && meas_hz == 0)
		have_meas = false;
	if (have_dt && dt_hz == 0)
		have_dt = false;
	if (!have_meas) {
		*hz = dt_hz;
		return have_dt ? CLOCK_FROM_DT : CLOCK_NONE;
	}
	*hz = meas_hz;
	if (!have_dt)
		return CLOCK_MEASURED;
	diff = dt_hz > meas_hz ? dt_hz - meas_hz : meas_hz - dt_hz;
	if (diff * 1000000u <= (uint64_t)dt_hz * CLOCK_AGREE_PPM) {
		*hz = dt_hz;
		return CLOCK_FROM_DT;
	}
	return CLOCK_MEASURED_OVER_DT;
}

#endif
