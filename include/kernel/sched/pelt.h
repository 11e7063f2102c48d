/*
 * Per-entity load tracking (PELT): Paul Turner's geometric series of
 * runnable and running time, as in his patches 01/16 and 15/16, with the
 * O(1) decay that mainline adopted later.
 *
 * Time is counted in units of 1024 ns and grouped in periods of 1024 units
 * (~1 ms). Let u_i, r_i be the units of period i (i = 0 is the current,
 * still partial, period; i = 1 the one before, ...) during which the
 * entity was runnable, resp. running, and w_i its length (1024 except for
 * i = 0). With y^32 = 1/2:
 *
 *	runnable_avg_sum    = sum_i u_i * y^i
 *	usage_avg_sum       = sum_i r_i * y^i
 *	runnable_avg_period = sum_i w_i * y^i
 *
 * so sum/period is the recent fraction of time runnable (resp. running),
 * with history halving in weight every 32 ms. Period boundaries fall every
 * 1024 units after pelt_init(); period_contrib is how many units the
 * current period holds (the seed derived it from runnable_avg_period % 1024,
 * which stops being the position in the period once the period has decayed;
 * the position is tracked exactly here). Time is never lost: last_update_ns
 * advances by whole units only, so sub-unit remainders carry over.
 *
 * Integer arithmetic truncates, so the sums sit slightly below the real
 * series. Bounds (derived in tests/host/test_pelt.c; checked on every update
 * and snapshot in debug kernels, host tests and fuzzers: KASSERT_DEBUG):
 *	usage_avg_sum <= runnable_avg_sum <= runnable_avg_period
 *	runnable_avg_period - period_contrib <= PELT_HISTORY_MAX
 *	runnable_avg_period <= PELT_SUM_MAX
 *
 * Concurrency: the entity's owner (the CPU whose run queue it is, or whoever
 * holds the lock that serialises updates of a task's avg) calls
 * pelt_update(), which publishes through sa->seq by itself; callers must not
 * wrap it in another write section. Any other CPU reads with pelt_snapshot()
 * and uses the helpers on the copy. The helpers on a live sched_avg are for
 * its owner only.
 */
#ifndef KERNEL_PELT_H
#define KERNEL_PELT_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/sync/seqcount.h"

/* ns per unit is 1 << PELT_UNIT_SHIFT; units per period is PELT_PERIOD_UNITS. */
#define PELT_UNIT_SHIFT		10
#define PELT_PERIOD_UNITS	1024u
/* y^PELT_HALFLIFE == 1/2 (periods). */
#define PELT_HALFLIFE		32u

/*
 * Mainline's LOAD_AVG_MAX: the value at which the per-period integer
 * recursion x = x * y + 1024 (x * y truncated, y from the table in pelt.c)
 * stops growing. PELT_LOAD_AVG_MAX - 1024 is the most that full history
 * periods contribute in the closed form used for long gaps. The real
 * series 1024 / (1 - y) is 47788.
 */
#define PELT_LOAD_AVG_MAX	47742u
/*
 * Mainline's LOAD_AVG_MAX_N: after this many periods the recursion is
 * saturated. Here, after PELT_LOAD_AVG_MAX_N fully runnable periods the
 * history is within 0.1% of its limit; it reaches it exactly after ~480
 * periods, when y^n * (PELT_LOAD_AVG_MAX - 1024) truncates to zero.
 */
#define PELT_LOAD_AVG_MAX_N	345u
/*
 * Largest history (runnable_avg_period - period_contrib) any sequence of
 * updates can produce. It exceeds PELT_LOAD_AVG_MAX - 1024 by 22 because
 * the single-boundary step and the closed form truncate at different places.
 */
#define PELT_HISTORY_MAX	46740u
/* Largest value of any of the three sums. */
#define PELT_SUM_MAX		(PELT_HISTORY_MAX + PELT_PERIOD_UNITS - 1u)

/* Ratios returned by the helpers are scaled so that 100% == PELT_SCALE. */
#define PELT_SCALE_SHIFT	10
#define PELT_SCALE		(1u << PELT_SCALE_SHIFT)

struct sched_avg {
	uint32_t runnable_avg_sum;
	uint32_t runnable_avg_period;
	uint32_t usage_avg_sum;
	/* Units already in the current period: 0 .. PELT_PERIOD_UNITS - 1. */
	uint32_t period_contrib;
	/* Time the sums are up to; trails "now" by less than one unit. */
	uint64_t last_update_ns;
	/* Protects all of the above for pelt_snapshot(). */
	seqcount_t seq;
};

/* Empty history whose first period starts at @now_ns. Not concurrent-safe. */
void pelt_init(struct sched_avg *sa, uint64_t now_ns);

/*
 * Account the time from the last update to @now_ns, during which the entity
 * was @runnable and @running throughout (running implies runnable:
 * KASSERT_DEBUG). Returns the number of period boundaries crossed (0: no decay
 * happened; saturates at INT_MAX). If @now_ns is before the last update
 * (a clock that went backwards), resynchronises to @now_ns and returns 0,
 * as the seed did. Times compare modulo 2^64, as Linux compares jiffies:
 * "before" is (int64_t)(now_ns - last_update_ns) < 0, so the one
 * subtraction of pelt_update()'s fast path is also the direction test.
 */
int pelt_update_elapsed(struct sched_avg *sa, uint64_t now_ns, bool runnable, bool running, uint32_t scale);

/*
 * The entity's state during the time an update accounts, as one number for
 * the slow path's arguments (four, all in registers): a bit each, running
 * (which implies runnable) the upper one.
 */
enum pelt_state { PELT_IDLE = 0, PELT_RUNNABLE = 1, PELT_RUNNING = 3 };

static inline unsigned int pelt_state(bool runnable, bool running)
{
	return (unsigned int)runnable | (unsigned int)running << 1;
}

/*
 * pelt_update_elapsed()'s slow paths, for a @delta_ns = now - last update
 * that its caller has found to cross the current period's end:
 * pelt_update_crossing() for one below 2^32 ns (4 s), given as its whole
 * @units (@state: enum pelt_state), pelt_update_far() for a longer one or
 * a negative one (the clock went back). pelt_update_scaled()'s calls,
 * without the subtraction and the tests it has just done.
 */
int pelt_update_crossing(struct sched_avg *sa, uint32_t units, unsigned int state, uint32_t scale);
int pelt_update_far(struct sched_avg *sa, uint64_t delta_ns, bool runnable, bool running, uint32_t scale);

/*
 * Frequency invariance: running time counts @scale / PELT_SCALE of itself
 * (@scale: the CPU's frequency over its top one, cpufreq_scale()), so a
 * usage ratio is the share of the CPU's top-OPP capacity the entity used,
 * the same figure at every OPP (Linux's arch_scale_freq_capacity()). Only
 * usage is scaled; runnable and period are time. Truncated per piece, so
 * usage_avg_sum <= runnable_avg_sum still holds.
 */
static inline uint32_t pelt_scale_units(uint32_t units, uint32_t scale)
{
	return scale == PELT_SCALE ? units : (uint32_t)(((uint64_t)units * scale) >> PELT_SCALE_SHIFT);
}

/* @units whole units that stay inside the current period: each sum grows by what the period does. */
static inline void pelt_accrue(struct sched_avg *sa, uint32_t units, bool runnable, bool running, uint32_t scale)
{
	seqcount_write_begin(&sa->seq);
	sa->last_update_ns += (uint64_t)units << PELT_UNIT_SHIFT;
	if (runnable)
		sa->runnable_avg_sum += units;
	if (running)
		sa->usage_avg_sum += pelt_scale_units(units, scale);
	sa->runnable_avg_period += units;
	sa->period_contrib += units;
	seqcount_write_end(&sa->seq);
}

/* The whole units in @delta_ns (below 2^32) (*@units); true when they stay inside the current period (no decay due). */
static inline bool pelt_within_period(const struct sched_avg *sa, uint32_t delta_ns, uint32_t *units)
{
	*units = delta_ns >> PELT_UNIT_SHIFT;
	return *units < PELT_PERIOD_UNITS - sa->period_contrib;
}

/*
 * The hot paths' entry: less than a unit since the last update (every
 * yield, most wake-ups) costs a compare, a stretch inside the current
 * period a few adds inline; only a period boundary (decay) makes a call.
 */
static inline int pelt_update_scaled(struct sched_avg *sa, uint64_t now_ns, bool runnable, bool running,
				     uint32_t scale)
{
	uint64_t delta_ns = now_ns - sa->last_update_ns;
	uint32_t units;

	if (delta_ns < (1u << PELT_UNIT_SHIFT))
		return 0;
	if (__builtin_expect((delta_ns >> 32) != 0, 0))
		return pelt_update_far(sa, delta_ns, runnable, running, scale);
	if (pelt_within_period(sa, (uint32_t)delta_ns, &units)) {
		pelt_accrue(sa, units, runnable, running, scale);
		return 0;
	}
	return pelt_update_crossing(sa, units, pelt_state(runnable, running), scale);
}

/* At the top frequency (or with no DVFS): running time counts in full. */
static inline int pelt_update(struct sched_avg *sa, uint64_t now_ns, bool runnable, bool running)
{
	return pelt_update_scaled(sa, now_ns, runnable, running, PELT_SCALE);
}

/* val * y^periods, truncated; never more than the exact value. O(1). */
uint32_t pelt_decay(uint32_t val, uint64_t periods);

/*
 * sum_{k=1..periods} 1024 * y^k: what @periods full periods contribute
 * behind the current one. O(1); tends to PELT_LOAD_AVG_MAX - 1024.
 */
uint32_t pelt_periods_sum(uint64_t periods);

/* Consistent copy of @sa, safe against a concurrent pelt_update(). */
void pelt_snapshot(const struct sched_avg *sa, struct sched_avg *snap);

/* sum / period scaled to PELT_SCALE; 0 while period is 0. */
uint32_t pelt_ratio(uint32_t sum, uint32_t period);
/* Fraction of recent time runnable, resp. running, scaled to PELT_SCALE. */
uint32_t pelt_runnable_ratio(const struct sched_avg *sa);
/*
 * Count @ratio (of PELT_SCALE) more of @sa's history as running and runnable
 * (each sum capped by the one above it): the usage ratio rises by @ratio,
 * or to 100%. The owner only. Linux attaches a new entity's util_avg to its
 * cfs_rq's sum; in this model a run queue's average is its own signal, so
 * the new task's share is added to that signal's history.
 */
void pelt_add_usage(struct sched_avg *sa, uint32_t ratio);
uint32_t pelt_usage_ratio(const struct sched_avg *sa);

/* weight * runnable_avg_sum / (runnable_avg_period + 1), as the seed's contrib. */
unsigned long pelt_load_contrib(const struct sched_avg *sa, unsigned long weight);

/* A small task: running less than 25% of the tracked time (seed RFC 3/6). */
static inline bool pelt_is_light(const struct sched_avg *sa)
{
	return ((uint64_t)sa->usage_avg_sum << 2) < sa->runnable_avg_period;
}

/*
 * Light now and light however long the entity then sleeps (idle time
 * counted by pelt_update(..., false, false)): 4 * usage + PELT_LIGHT_MARGIN
 * < period. Sleep only lowers usage against period: usage decays, never up
 * (truncation), the period loses at most 2 units to truncation and gains
 * the sleep, so the margin of 8 covers even a one-period sleep (checked by
 * tests/host/test_pelt.c). Lets a wake-up skip the update when this holds.
 */
#define PELT_LIGHT_MARGIN 8u
static inline bool pelt_sums_stay_light(uint32_t usage_avg_sum, uint32_t runnable_avg_period)
{
	return ((uint64_t)usage_avg_sum << 2) + PELT_LIGHT_MARGIN < runnable_avg_period;
}

static inline bool pelt_stays_light(const struct sched_avg *sa)
{
	return pelt_sums_stay_light(sa->usage_avg_sum, sa->runnable_avg_period);
}

/*
 * Does @sa (another CPU's entity: a seqcount read of two words, not
 * pelt_snapshot()'s copy) stay light however long it sleeps? The wake-up's
 * packing test, which needs the whole average only when this fails.
 */
static inline bool pelt_read_stays_light(const struct sched_avg *sa)
{
	uint32_t seq, usage_sum, period_sum;

	do {
		seq = seqcount_read_begin(&sa->seq);
		usage_sum = READ_ONCE(sa->usage_avg_sum);
		period_sum = READ_ONCE(sa->runnable_avg_period);
	} while (seqcount_read_retry(&sa->seq, seq));
	return pelt_sums_stay_light(usage_sum, period_sum);
}

/*
 * A busy buddy CPU: usage_sum << nr_running > period (seed RFC 4/6), so a
 * little usage counts as busy once several tasks are queued. Exact for any
 * nr_running (no shift overflow).
 */
bool pelt_is_buddy_busy(uint32_t usage_sum, uint32_t period, unsigned int nr_running);

#endif
