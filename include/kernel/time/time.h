/*
 * Conversion between hardware counter ticks and nanoseconds without 64-bit
 * division (the Cortex-A9 has no divider): ns = ticks * mult >> 24 and
 * ticks = ns * inv_mult >> 32, each computed as a 64x32 multiply in two
 * halves so nothing overflows for centuries of uptime. Exact for frequencies
 * that divide 10^9 * 2^24 (100 MHz, 62.5 MHz); within 1 ppb otherwise.
 * Valid for 4 MHz <= freq <= 1 GHz.
 */
#ifndef KERNEL_TIME_H
#define KERNEL_TIME_H

#include <stdint.h>

#define NSEC_PER_SEC  1000000000ull
#define NSEC_PER_MSEC 1000000ull
#define NSEC_PER_USEC 1000ull

struct clock_conv {
	uint32_t freq_hz;
	uint32_t mult;		/* ns per tick, 8.24 fixed point */
	uint32_t inv_mult;	/* ticks per ns, 0.32 fixed point */
	uint32_t ns_per_tick;	/* whole ns per tick when freq_hz divides 1 GHz, else 0 */
};

#define CLOCK_CONV_SHIFT 24

/* Returns 0, or -1 when @freq_hz is outside the supported range. */
int clock_conv_init(struct clock_conv *cc, uint32_t freq_hz);

/* (x * m) >> shift for a 64-bit x and 32-bit m, without a 128-bit type. */
static inline uint64_t clock_mul_shift(uint64_t x, uint32_t m, unsigned int shift)
{
	uint64_t lo = (uint64_t)(uint32_t)x * m;
	uint64_t hi = (x >> 32) * m;

	return (hi << (32 - shift)) + (lo >> shift);
}

/* Inline: every clock read converts (the scheduler reads it on every switch). */
static inline uint64_t clock_ticks_to_ns(const struct clock_conv *cc, uint64_t ticks)
{
	/* A whole ns per tick (QEMU's 62.5 and 100 MHz) is one multiply: the same value, fewer instructions. */
	if (cc->ns_per_tick)
		return ticks * cc->ns_per_tick;
	return clock_mul_shift(ticks, cc->mult, CLOCK_CONV_SHIFT);
}

static inline uint64_t clock_ns_to_ticks(const struct clock_conv *cc, uint64_t ns)
{
	return clock_mul_shift(ns, cc->inv_mult, 32);
}

/*
 * @to - @from for two readings of a cumulative counter, 0 if they crossed:
 * counters that other CPUs keep can be read a little ahead of the reader's
 * clock (by the skew between CPUs' clocks: the simulator's CPUs each have
 * their own), so a later snapshot may see a CPU's stretch end before an
 * earlier snapshot's extrapolation of it did.
 */
static inline uint64_t ns_delta(uint64_t from, uint64_t to)
{
	return to > from ? to - from : 0;
}

#endif
