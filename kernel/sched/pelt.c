/*
 * PELT arithmetic (see include/kernel/sched/pelt.h for the model and bounds).
 *
 * Every operation is O(1) in the elapsed time: y^n is a table lookup for
 * n % 32 and a shift for n / 32 (y^32 = 1/2), and the contribution of n full
 * periods is a closed form of the geometric series instead of the seed's
 * per-period loop.
 */
#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/lib/panic.h"
#include "kernel/sched/pelt.h"

/*
 * y_inv[n] = floor(2^32 * y^n) = floor(2^32 * 2^(-n/32)) for 1 <= n < 32,
 * so val * y^n ~= (val * y_inv[n]) >> 32 and never exceeds the exact value.
 * Generated with 50-digit decimals:
 *   python3 -c 'from decimal import *; getcontext().prec = 50
 *   for n in range(1, 32): print(hex(int(2 ** 32 * Decimal(2) ** (Decimal(-n) / 32))))'
 * and checked against long double in tests/host/test_pelt.c. y^0 = 1 does
 * not fit: entry 0 holds y^32 = 1/2, and y^n for n >= 1 is one less
 * halving then that multiply (decay_factor()): every n >= 1 is a shift and
 * a multiply, with no test of n % 32 on the roll-over's path.
 */
static const uint32_t y_inv[PELT_HALFLIFE] = {
	0x80000000, 0xfa83b2db, 0xf5257d15, 0xefe4b99b,
	0xeac0c6e7, 0xe5b906e7, 0xe0ccdeec, 0xdbfbb797,
	0xd744fcca, 0xd2a81d91, 0xce248c15, 0xc9b9bd86,
	0xc5672a11, 0xc12c4cca, 0xbd08a39f, 0xb8fbaf47,
	0xb504f333, 0xb123f581, 0xad583eea, 0xa9a15ab4,
	0xa5fed6a9, 0xa2704303, 0x9ef53260, 0x9b8d39b9,
	0x9837f051, 0x94f4efa8, 0x91c3d373, 0x8ea4398b,
	0x8b95c1e3, 0x88980e80, 0x85aac367, 0x82cd8698,
};

/* sum_{k>=1} 1024 * y^k as the truncating arithmetic sees it. */
#define HISTORY_LIMIT (PELT_LOAD_AVG_MAX - PELT_PERIOD_UNITS)

/* 32 halvings empty any uint32_t. */
#define PERIODS_EMPTY (PELT_HALFLIFE * 32u)

/* y^n (n >= 1) as a shift and a multiplier: computed once, applied to several values. */
struct decay_factor {
	unsigned int halvings;
	uint32_t mult;
};

/*
 * n = 32 k + r: k halvings and y_inv[r] for r > 0; k - 1 halvings and
 * y_inv[0] (one more halving) for r == 0, so (val >> (k - 1)) / 2 = val >> k
 * exactly. Halvings stay below 32 for n < PERIODS_EMPTY + 1.
 */
static inline struct decay_factor decay_factor(uint32_t n)
{
	struct decay_factor f = { (n - 1) / PELT_HALFLIFE, y_inv[n % PELT_HALFLIFE] };

	KASSERT_DEBUG(n >= 1 && n <= PERIODS_EMPTY);
	return f;
}

static inline uint32_t decay_by(uint32_t val, struct decay_factor f)
{
	return (uint32_t)(((uint64_t)(val >> f.halvings) * f.mult) >> 32);
}

/* pelt_decay() for n < PERIODS_EMPTY, in 32-bit arithmetic: a shift and at most one multiply. */
static inline uint32_t decay_short(uint32_t val, uint32_t n)
{
	return n ? decay_by(val, decay_factor(n)) : val;
}

uint32_t pelt_decay(uint32_t val, uint64_t periods)
{
	return periods < PERIODS_EMPTY ? decay_short(val, (uint32_t)periods) : 0;
}

uint32_t pelt_periods_sum(uint64_t periods)
{
	/*
	 * sum_{k=1..n} 1024 y^k = sum_{k>=1} 1024 y^k - y^n * sum_{k>=1} 1024 y^k.
	 * Decay of the limit reaches 0 after ~480 periods, so the sum then
	 * saturates at HISTORY_LIMIT without a special case.
	 */
	uint32_t sum = HISTORY_LIMIT - pelt_decay(HISTORY_LIMIT, periods);

	KASSERT(sum <= HISTORY_LIMIT);
	return sum;
}

void pelt_init(struct sched_avg *sa, uint64_t now_ns)
{
	KASSERT(sa != NULL);
	sa->runnable_avg_sum = 0;
	sa->runnable_avg_period = 0;
	sa->usage_avg_sum = 0;
	sa->period_contrib = 0;
	sa->last_update_ns = now_ns;
	seqcount_init(&sa->seq);
}

/* The bounds of include/kernel/sched/pelt.h; hot, so checked in debug builds (KASSERT_DEBUG). */
static inline void check_bounds(const struct sched_avg *sa)
{
	KASSERT_DEBUG(sa->usage_avg_sum <= sa->runnable_avg_sum);
	KASSERT_DEBUG(sa->runnable_avg_sum <= sa->runnable_avg_period);
	KASSERT_DEBUG(sa->period_contrib < PELT_PERIOD_UNITS);
	KASSERT_DEBUG(sa->runnable_avg_period >= sa->period_contrib);
	KASSERT_DEBUG(sa->runnable_avg_period - sa->period_contrib <= PELT_HISTORY_MAX);
	(void)sa;
}

/*
 * Crossing this many period ends or more, every sum (below 2^17) and the
 * doubled history limit have decayed to 0: y^992 is 31 halvings, and
 * y^(992 + 31) is 31 halvings and more (decay_factor()'s most, below 32).
 */
#define BOUNDARIES_EMPTY (PERIODS_EMPTY - PELT_HALFLIFE)

/*
 * Roll @val over the period boundaries of @f: the units @head that
 * complete the current period join it (if the entity was in the counted
 * state: @counted all ones, else 0), the whole lot ages, then @rest (the
 * full periods in between plus the tail that opens the new current
 * period) is added. The seed's order: only the sums' truncation points,
 * not the meaning, differ from mainline's. A mask, not a branch: the three
 * sums' roll-overs run straight through.
 */
static inline uint32_t roll_over(uint32_t val, uint32_t counted, uint32_t head, struct decay_factor f, uint32_t rest)
{
	return decay_by(val + (head & counted), f) + (rest & counted);
}

/* pelt_update() once a unit or more may have passed (or the clock went back). */
int pelt_update_elapsed(struct sched_avg *sa, uint64_t now_ns, bool runnable, bool running, uint32_t scale)
{
	uint64_t delta_ns;
	uint32_t units;

	KASSERT_DEBUG(sa != NULL);
	/* pelt_update() has returned already when less than a unit passed (if not, units is 0 below). */
	delta_ns = now_ns - sa->last_update_ns;
	if (!(delta_ns >> 32)) {
		if (pelt_within_period(sa, (uint32_t)delta_ns, &units)) {
			/* Inside the period (pelt_update() does this inline; other callers get here). */
			KASSERT_DEBUG(runnable || !running);
			KASSERT_DEBUG(scale <= PELT_SCALE);
			pelt_accrue(sa, units, runnable, running, scale);
			check_bounds(sa);
			return 0;
		}
		return pelt_update_crossing(sa, units, pelt_state(runnable, running), scale);
	}
	return pelt_update_far(sa, delta_ns, runnable, running, scale);
}

/*
 * The roll-over both slow paths end in, inside their write section (which
 * it closes), last_update_ns already advanced: @head units complete the
 * current period, @boundaries period ends are crossed (any count from
 * BOUNDARIES_EMPTY on means "all"), @tail units open the new current
 * period. @state: enum pelt_state.
 */
static inline void roll_periods(struct sched_avg *sa, uint32_t head, uint32_t boundaries, uint32_t tail,
				unsigned int state, uint32_t scale)
{
	uint32_t full_sum, runnable, running;	/* the last two: masks for roll_over() */
	struct decay_factor f;

	KASSERT_DEBUG(boundaries >= 1 && tail < PELT_PERIOD_UNITS);
	/*
	 * From BOUNDARIES_EMPTY on, the sums (below 2^17) and the history
	 * limit have decayed to 0 whatever the count: clamped, not a branch.
	 */
	if (boundaries > BOUNDARIES_EMPTY)
		boundaries = BOUNDARIES_EMPTY;
	f = decay_factor(boundaries);
	/*
	 * pelt_periods_sum(boundaries - 1), in 32 bits, without decay_short()'s
	 * test of 0: y^(n - 1) * L truncates as y^(n + 31) * 2L does.
	 */
	full_sum = HISTORY_LIMIT - decay_by(2 * HISTORY_LIMIT, decay_factor(boundaries + PELT_HALFLIFE - 1));

	runnable = -(state & PELT_RUNNABLE);
	running = -(state >> 1);
	sa->runnable_avg_sum = roll_over(sa->runnable_avg_sum, runnable, head, f, full_sum + tail);
	if (__builtin_expect(scale == PELT_SCALE, 1))
		sa->usage_avg_sum = roll_over(sa->usage_avg_sum, running, head, f, full_sum + tail);
	else
		sa->usage_avg_sum = roll_over(sa->usage_avg_sum, running, pelt_scale_units(head, scale), f,
					      pelt_scale_units(full_sum, scale) + pelt_scale_units(tail, scale));
	sa->runnable_avg_period = roll_over(sa->runnable_avg_period, ~0u, head, f, full_sum + tail);
	sa->period_contrib = tail;
	check_bounds(sa);
	seqcount_write_end(&sa->seq);
}

/*
 * Never inlined: pelt_update_scaled(), inline on every hot path, calls it
 * once a period or less, so a copy in each caller would only grow them;
 * and the pelt microbench then times the call those callers make (LTO
 * inlined it into the bench's loop alone, 79 instructions instead of 97).
 */
__attribute__((noinline)) int pelt_update_crossing(struct sched_avg *sa, uint32_t units, unsigned int state,
						   uint32_t scale)
{
	/* From the current period's start: its end and every later one at a multiple of PELT_PERIOD_UNITS. */
	uint32_t contrib = sa->period_contrib, from_start = contrib + units;

	KASSERT_DEBUG(state == PELT_IDLE || state == PELT_RUNNABLE || state == PELT_RUNNING);
	KASSERT_DEBUG(scale <= PELT_SCALE);
	KASSERT_DEBUG(from_start >= PELT_PERIOD_UNITS && units < (1u << (32 - PELT_UNIT_SHIFT)));
	seqcount_write_begin(&sa->seq);
	/* Whole units only: the sub-unit remainder stays for the next update. */
	sa->last_update_ns += (uint64_t)units << PELT_UNIT_SHIFT;
	roll_periods(sa, PELT_PERIOD_UNITS - contrib, from_start / PELT_PERIOD_UNITS, from_start % PELT_PERIOD_UNITS,
		     state, scale);
	return (int)(from_start / PELT_PERIOD_UNITS);
}

int pelt_update_far(struct sched_avg *sa, uint64_t delta_ns, bool runnable, bool running, uint32_t scale)
{
	uint64_t units64 = delta_ns >> PELT_UNIT_SHIFT, periods;
	uint32_t head;

	KASSERT_DEBUG(runnable || !running);
	KASSERT_DEBUG(scale <= PELT_SCALE);
	seqcount_write_begin(&sa->seq);
	if (delta_ns >> 63) {	/* now is before the last update (modulo 2^64) */
		/* The clock went backwards (a CPU whose clock lags): resynchronise. */
		sa->last_update_ns += delta_ns;	/* = now */
		seqcount_write_end(&sa->seq);
		return 0;
	}
	KASSERT_DEBUG(delta_ns >> 32);
	/* Over 4 s (4096 periods): everything old has decayed away. */
	sa->last_update_ns += units64 << PELT_UNIT_SHIFT;
	head = PELT_PERIOD_UNITS - sa->period_contrib;
	periods = (units64 - head) / PELT_PERIOD_UNITS + 1;
	roll_periods(sa, head, BOUNDARIES_EMPTY, (uint32_t)((units64 - head) % PELT_PERIOD_UNITS),
		     pelt_state(runnable, running), scale);
	return periods > INT_MAX ? INT_MAX : (int)periods;
}

void pelt_snapshot(const struct sched_avg *sa, struct sched_avg *snap)
{
	uint32_t seq;

	KASSERT(sa != NULL && snap != NULL && sa != snap);
	do {
		seq = seqcount_read_begin(&sa->seq);
		snap->runnable_avg_sum = READ_ONCE(sa->runnable_avg_sum);
		snap->runnable_avg_period = READ_ONCE(sa->runnable_avg_period);
		snap->usage_avg_sum = READ_ONCE(sa->usage_avg_sum);
		snap->period_contrib = READ_ONCE(sa->period_contrib);
		/* May tear on 32-bit CPUs: the retry below discards a torn copy. */
		snap->last_update_ns = READ_ONCE(sa->last_update_ns);
	} while (seqcount_read_retry(&sa->seq, seq));
	/* The copy is private: its own count is that of a quiet seqcount. */
	seqcount_init(&snap->seq);
	check_bounds(snap);
}

uint32_t pelt_ratio(uint32_t sum, uint32_t period)
{
	KASSERT(sum <= period);
	if (period == 0)
		return 0;
	/* Sums stay below 2^16 (PELT_SUM_MAX): a 32-bit division, one instruction where the CPU has UDIV. */
	if (__builtin_expect(sum <= PELT_SUM_MAX, 1))
		return (sum << PELT_SCALE_SHIFT) / period;
	return (uint32_t)(((uint64_t)sum << PELT_SCALE_SHIFT) / period);
}

uint32_t pelt_runnable_ratio(const struct sched_avg *sa)
{
	return pelt_ratio(sa->runnable_avg_sum, sa->runnable_avg_period);
}

void pelt_add_usage(struct sched_avg *sa, uint32_t ratio)
{
	uint32_t period = sa->runnable_avg_period;
	uint32_t add = (uint32_t)(((uint64_t)period * ratio) >> PELT_SCALE_SHIFT);

	KASSERT_DEBUG(ratio <= PELT_SCALE);
	seqcount_write_begin(&sa->seq);
	sa->runnable_avg_sum = sa->runnable_avg_sum + add < period ? sa->runnable_avg_sum + add : period;
	sa->usage_avg_sum = sa->usage_avg_sum + add < sa->runnable_avg_sum ? sa->usage_avg_sum + add
									    : sa->runnable_avg_sum;
	seqcount_write_end(&sa->seq);
	check_bounds(sa);
}

uint32_t pelt_usage_ratio(const struct sched_avg *sa)
{
	return pelt_ratio(sa->usage_avg_sum, sa->runnable_avg_period);
}

unsigned long pelt_load_contrib(const struct sched_avg *sa, unsigned long weight)
{
	uint64_t contrib;

	KASSERT(sa->runnable_avg_sum <= sa->runnable_avg_period);
	/* Nice -20's weight times PELT_SUM_MAX overflows 32 bits: use 64. */
	contrib = (uint64_t)weight * sa->runnable_avg_sum /
		  ((uint64_t)sa->runnable_avg_period + 1);
	KASSERT(contrib <= weight);
	return (unsigned long)contrib;
}



bool pelt_is_buddy_busy(uint32_t usage_sum, uint32_t period, unsigned int nr_running)
{
	if (usage_sum == 0)
		return false;
	/* usage_sum >= 1 shifted by 32 or more exceeds any uint32_t period. */
	if (nr_running >= 32)
		return true;
	return ((uint64_t)usage_sum << nr_running) > period;
}
