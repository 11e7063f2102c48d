/* Tick <-> ns conversion against exact 128-bit arithmetic. */
#include "ktest.h"
#include "kernel/time/time.h"

static unsigned __int128 exact_ns(uint64_t ticks, uint32_t f)
{
	return (unsigned __int128)ticks * NSEC_PER_SEC / f;
}

KT_CASE(exact_frequencies)
{
	struct clock_conv cc;
	const uint32_t freqs[] = { 100000000u, 62500000u, 1000000000u, 200000000u };

	for (unsigned i = 0; i < 4; i++) {
		KT_ASSERT_EQ(clock_conv_init(&cc, freqs[i]), 0);
		/* whole ns per tick: the one-multiply path, which must agree with the fixed-point one */
		KT_ASSERT_EQ(cc.ns_per_tick, NSEC_PER_SEC / freqs[i]);
		for (uint64_t t = 1; t < (1ull << 50); t = t * 3 + 7) {
			KT_ASSERT_EQ(clock_ticks_to_ns(&cc, t), (uint64_t)exact_ns(t, freqs[i]));
			KT_ASSERT_EQ(clock_mul_shift(t, cc.mult, CLOCK_CONV_SHIFT), (uint64_t)exact_ns(t, freqs[i]));
		}
	}
}

KT_CASE(inexact_24mhz_within_1ppm)
{
	struct clock_conv cc;

	KT_ASSERT_EQ(clock_conv_init(&cc, 24000000u), 0);
	KT_ASSERT_EQ(cc.ns_per_tick, 0);	/* 41.67 ns: the fixed-point path */
	/* up to ~10 years of ticks */
	for (uint64_t t = 1; t < 24000000ull * 3600 * 24 * 3650; t = t * 5 + 1) {
		uint64_t want = (uint64_t)exact_ns(t, 24000000u);
		uint64_t got = clock_ticks_to_ns(&cc, t);
		uint64_t err = got > want ? got - want : want - got;
		KT_ASSERT_MSG(err <= want / 1000000 + 1, "t=%llu got %llu want %llu",
			      (unsigned long long)t, (unsigned long long)got,
			      (unsigned long long)want);
	}
}

KT_CASE(round_trip)
{
	struct clock_conv cc;
	const uint32_t freqs[] = { 100000000u, 62500000u, 24000000u, 4000000u };

	for (unsigned i = 0; i < 4; i++) {
		KT_ASSERT_EQ(clock_conv_init(&cc, freqs[i]), 0);
		for (uint64_t ns = 1000; ns < (1ull << 55); ns = ns * 7 + 3) {
			uint64_t t = clock_ns_to_ticks(&cc, ns);
			uint64_t back = clock_ticks_to_ns(&cc, t);
			uint64_t tick_ns = NSEC_PER_SEC / freqs[i] + 1;
			uint64_t err = back > ns ? back - ns : ns - back;
			KT_ASSERT_MSG(err <= tick_ns + ns / 1000000, "f=%u ns=%llu back=%llu",
				      freqs[i], (unsigned long long)ns,
				      (unsigned long long)back);
		}
	}
}

KT_CASE(range_checked)
{
	struct clock_conv cc;

	KT_ASSERT_EQ(clock_conv_init(&cc, 1000000u), -1);
	KT_ASSERT_EQ(clock_conv_init(&cc, 2000000000u), -1);
}
