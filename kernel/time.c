/* Tick <-> nanosecond conversion; see include/kernel/time.h. */
#include "kernel/time.h"

#define CONV_SHIFT 24

int clock_conv_init(struct clock_conv *cc, uint32_t freq_hz)
{
	if (freq_hz < 4000000u || freq_hz > 1000000000u)
		return -1;
	cc->freq_hz = freq_hz;
	/* Round to nearest so that e.g. 24 MHz errs by < 1 ppb. */
	cc->mult = (uint32_t)(((NSEC_PER_SEC << CONV_SHIFT) + freq_hz / 2) / freq_hz);
	cc->inv_mult = (uint32_t)((((uint64_t)freq_hz << 32) + NSEC_PER_SEC / 2) /
				  NSEC_PER_SEC);
	return 0;
}

/* (x * m) >> shift for a 64-bit x and 32-bit m, without a 128-bit type. */
static uint64_t mul_shift(uint64_t x, uint32_t m, unsigned int shift)
{
	uint64_t lo = (uint64_t)(uint32_t)x * m;
	uint64_t hi = (x >> 32) * m;

	return (hi << (32 - shift)) + (lo >> shift);
}

uint64_t clock_ticks_to_ns(const struct clock_conv *cc, uint64_t ticks)
{
	return mul_shift(ticks, cc->mult, CONV_SHIFT);
}

uint64_t clock_ns_to_ticks(const struct clock_conv *cc, uint64_t ns)
{
	return mul_shift(ns, cc->inv_mult, 32);
}
