/*
 * Fuzz target `pelt`: sequences of pelt_update() (kernel/sched/pelt.c) against
 * the model and bounds of include/kernel/sched/pelt.h.
 *
 * Input: 8 bytes start time, then records of 5 bytes: one op byte and a
 * 32-bit argument. op bits 0-1: state from now on (0 idle, 1 runnable,
 * 2-3 running); bits 2-4: how the argument moves the clock (ns, units,
 * periods, x2^20 periods, a jump back, an absolute 64-bit time from the
 * next 8 bytes, or none); bits 5-7 pick the weight for pelt_load_contrib.
 * After every update, checked exactly:
 *  - clock going back (modulo 2^64: (int64_t)(now - last) < 0): only last_update_ns moves (to now), returns 0;
 *  - otherwise, with units = (now - last) >> 10: last_update_ns advances by
 *    units << 10 (so it trails now by < 1024 ns), period_contrib becomes
 *    (period_contrib + units) % 1024, the return value is the number of
 *    period boundaries crossed, (period_contrib + units) / 1024, capped at
 *    INT_MAX; inside one period the sums grow by exactly units (when
 *    runnable / running);
 *  - the bounds: usage <= runnable <= period, period - period_contrib <=
 *    PELT_HISTORY_MAX (pelt_snapshot() also KASSERTs them);
 *  - an entity runnable (running) at every update has runnable_avg_sum
 *    (usage_avg_sum) equal to runnable_avg_period; one never runnable has 0;
 *  - ratios <= PELT_SCALE; pelt_load_contrib(w) <= w; pelt_is_buddy_busy
 *    against 128-bit arithmetic; pelt_decay never above the exact value,
 *    less than 3 below it, monotone in the periods; pelt_periods_sum
 *    monotone and at most PELT_LOAD_AVG_MAX - 1024.
 */
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "kernel/sched/pelt.h"
#include "tests/fuzz/fuzz.h"

#define MAX_OPS 4096

static const unsigned long weights[8] = { 0, 1, 15, 1024, 88761, 1u << 20, 0xffffffffu, (unsigned long)-1 };

static void check_helpers(const struct sched_avg *sa, unsigned long w)
{
	struct sched_avg snap;
	uint32_t rr, ur;

	pelt_snapshot(sa, &snap);
	FUZZ_CHECK(snap.runnable_avg_sum == sa->runnable_avg_sum &&
		   snap.runnable_avg_period == sa->runnable_avg_period &&
		   snap.usage_avg_sum == sa->usage_avg_sum && snap.period_contrib == sa->period_contrib &&
		   snap.last_update_ns == sa->last_update_ns);
	FUZZ_CHECK(sa->usage_avg_sum <= sa->runnable_avg_sum);
	FUZZ_CHECK(sa->runnable_avg_sum <= sa->runnable_avg_period);
	FUZZ_CHECK(sa->runnable_avg_period <= PELT_SUM_MAX);
	FUZZ_CHECK(sa->period_contrib < PELT_PERIOD_UNITS);
	FUZZ_CHECK(sa->runnable_avg_period - sa->period_contrib <= PELT_HISTORY_MAX);
	rr = pelt_runnable_ratio(sa);
	ur = pelt_usage_ratio(sa);
	FUZZ_CHECK(rr <= PELT_SCALE && ur <= rr);
	FUZZ_CHECK(pelt_load_contrib(sa, w) <= w);
	FUZZ_CHECK(pelt_is_light(sa) == ((uint64_t)sa->usage_avg_sum * 4 < sa->runnable_avg_period));
}

static void check_buddy(uint32_t usage, uint32_t period, unsigned int nr)
{
	bool want = nr < 64 ? ((unsigned __int128)usage << nr) > period : usage != 0;

	FUZZ_CHECK_MSG(pelt_is_buddy_busy(usage, period, nr) == want, "usage %u period %u nr %u",
		       (unsigned)usage, (unsigned)period, nr);
}

static void check_decay(uint32_t val, uint64_t periods)
{
	uint32_t d = pelt_decay(val, periods), d1 = pelt_decay(val, periods + 1);
	long double exact = (long double)val * exp2l(-(long double)periods / 32.0L);

	FUZZ_CHECK_MSG((long double)d <= exact * (1.0L + 1e-15L), "decay(%u, %llu) = %u > exact %.6Lf",
		       (unsigned)val, (unsigned long long)periods, (unsigned)d, exact);
	FUZZ_CHECK_MSG((long double)d + 3.0L > exact, "decay(%u, %llu) = %u, exact %.6Lf",
		       (unsigned)val, (unsigned long long)periods, (unsigned)d, exact);
	FUZZ_CHECK(d1 <= d && d <= val);
	FUZZ_CHECK(pelt_decay(val, 0) == val);
	if (periods % PELT_HALFLIFE == 0 && periods / PELT_HALFLIFE < 32)
		FUZZ_CHECK(d == val >> (periods / PELT_HALFLIFE));
	FUZZ_CHECK(pelt_periods_sum(periods) <= pelt_periods_sum(periods + 1));
	FUZZ_CHECK(pelt_periods_sum(periods + 1) <= PELT_LOAD_AVG_MAX - PELT_PERIOD_UNITS);
	FUZZ_CHECK(pelt_periods_sum(0) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	struct sched_avg sa;
	uint64_t now = fuzz_take(&in, 8);
	bool runnable = false, running = false;
	bool always_runnable = true, always_running = true, never_runnable = true;

	/* Pure helpers on the first bytes. */
	check_decay((uint32_t)(now >> 32), (now & 0xffff) | ((now & 0x10000) ? (now & 0xffff0000) << 16 : 0));
	check_buddy((uint32_t)now, (uint32_t)(now >> 32), (unsigned)(now >> 24) & 0x7f);

	pelt_init(&sa, now);
	check_helpers(&sa, 1024);
	for (int op_no = 0; op_no < MAX_OPS && in.left; op_no++) {
		unsigned op = (unsigned)fuzz_take(&in, 1);
		uint64_t arg = fuzz_take(&in, 4), before_last = sa.last_update_ns;
		struct sched_avg before = sa;
		int ret;

		switch ((op >> 2) & 7) {
		case 0: now += arg; break;				/* ns */
		case 1: now += arg << 10; break;			/* units */
		case 2: now += (arg & 0xffff) << 20 | (arg >> 16); break;	/* periods + ns */
		case 3: now += arg << 30; break;			/* x2^20 periods */
		case 4: now -= arg < now ? arg : now; break;	/* clock goes back */
		case 5: now = fuzz_take(&in, 8); break;		/* anywhere */
		case 6: now = UINT64_MAX - arg; break;
		default: break;					/* same time */
		}
		ret = pelt_update(&sa, now, runnable, running);
		if ((int64_t)(now - before_last) < 0) {	/* before, modulo 2^64 */
			FUZZ_CHECK(ret == 0);
			FUZZ_CHECK(sa.last_update_ns == now);
			FUZZ_CHECK(sa.runnable_avg_sum == before.runnable_avg_sum &&
				   sa.runnable_avg_period == before.runnable_avg_period &&
				   sa.usage_avg_sum == before.usage_avg_sum &&
				   sa.period_contrib == before.period_contrib);
		} else {
			uint64_t units = (now - before_last) >> PELT_UNIT_SHIFT;
			uint64_t crossed = (before.period_contrib + units) / PELT_PERIOD_UNITS;

			FUZZ_CHECK(sa.last_update_ns == before_last + (units << PELT_UNIT_SHIFT));
			FUZZ_CHECK(now - sa.last_update_ns < (1u << PELT_UNIT_SHIFT));
			FUZZ_CHECK(sa.period_contrib == (before.period_contrib + units) % PELT_PERIOD_UNITS);
			FUZZ_CHECK_MSG((uint64_t)ret == (crossed > INT_MAX ? (uint64_t)INT_MAX : crossed),
				       "returned %d, crossed %llu", ret, (unsigned long long)crossed);
			if (crossed == 0) {
				FUZZ_CHECK(sa.runnable_avg_period == before.runnable_avg_period + units);
				FUZZ_CHECK(sa.runnable_avg_sum == before.runnable_avg_sum + (runnable ? units : 0));
				FUZZ_CHECK(sa.usage_avg_sum == before.usage_avg_sum + (running ? units : 0));
			}
			if (units) {
				always_runnable &= runnable;
				always_running &= running;
				never_runnable &= !runnable;
			}
		}
		if (always_runnable)
			FUZZ_CHECK_MSG(sa.runnable_avg_sum == sa.runnable_avg_period,
				       "always runnable, sum %u period %u", (unsigned)sa.runnable_avg_sum,
				       (unsigned)sa.runnable_avg_period);
		if (always_running)
			FUZZ_CHECK(sa.usage_avg_sum == sa.runnable_avg_period);
		if (never_runnable)
			FUZZ_CHECK(sa.runnable_avg_sum == 0 && sa.usage_avg_sum == 0);
		check_helpers(&sa, weights[op >> 5]);
		check_buddy(sa.usage_avg_sum, sa.runnable_avg_period, (unsigned)arg & 0x3f);
		/* The new state applies from now on (running implies runnable). */
		running = (op & 3) >= 2;
		runnable = (op & 3) >= 1;
	}
	return 0;
}
