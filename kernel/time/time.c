/* Tick <-> nanosecond conversion; see include/kernel/time/time.h. */
#include "kernel/time/time.h"

int clock_conv_init(struct clock_conv *cc, uint32_t freq_hz)
{
	if (freq_hz < 4000000u || freq_hz > 1000000000u)
		return -1;
	cc->freq_hz = freq_hz;
	/* Round to nearest so that e.g. 24 MHz errs by < 1 ppb. */
	cc->mult = (uint32_t)(((NSEC_PER_SEC << CLOCK_CONV_SHIFT) + freq_hz / 2) / freq_hz);
	cc->inv_mult = (uint32_t)((((uint64_t)freq_hz << 32) + NSEC_PER_SEC / 2) /
				  NSEC_PER_SEC);
	cc->ns_per_tick = NSEC_PER_SEC % freq_hz == 0 ? (uint32_t)(NSEC_PER_SEC / freq_hz) : 0;
	return 0;
}
