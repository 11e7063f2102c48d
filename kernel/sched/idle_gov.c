/* The idle governor; see include/kernel/sched/idle.h. */
#include <string.h>

#include "kernel/sched/idle.h"
#include "kernel/lib/panic.h"

/* Expected-sleep ranges that learn separate correction factors. */
static unsigned int bucket_of(uint64_t ns)
{
	static const uint64_t bound[IDLE_BUCKETS - 1] = { 10000, 100000, 1000000, 10000000, 100000000 };
	unsigned int b = 0;

	while (b < IDLE_BUCKETS - 1 && ns >= bound[b])
		b++;
	return b;
}

void idle_gov_init(struct idle_gov *g)
{
	memset(g, 0, sizeof(*g));
	for (int i = 0; i < IDLE_BUCKETS; i++)
		g->correction[i] = IDLE_CORR_ONE;
}

/*
 * The typical interval, if the recent idles were regular: their mean when
 * the standard deviation is at most a sixth of it (menu's test). 0 if not.
 */
static uint64_t typical_interval(const struct idle_gov *g)
{
	uint64_t sum = 0, var = 0, mean;

	for (int i = 0; i < IDLE_HISTORY; i++) {
		if (g->history[i] == 0)
			return 0;	/* not enough history yet */
		sum += g->history[i];
	}
	mean = sum / IDLE_HISTORY;
	for (int i = 0; i < IDLE_HISTORY; i++) {
		uint64_t d = g->history[i] > mean ? g->history[i] - mean : mean - g->history[i];

		/* Idles are < 2^32 ns for this test; longer ones are not "regular" anyway. */
		if (d >= (1ull << 31))
			return 0;
		var += d * d / IDLE_HISTORY;	/* < 2^62 / 8 each: no overflow */
	}
	/*
	 * stddev <= mean/6  <=>  var <= mean^2 / 36  <=>  36 var <= mean^2
	 * (mean < 2^31: no overflow; a var of 2^57 or more is above any
	 * mean^2 / 36). Multiplied, not divided: a 64-bit division is a
	 * ~120-instruction library call on 32-bit ARM, at every idle entry.
	 */
	if (mean < (1ull << 31) && var < (1ull << 57) && var * 36 <= mean * mean)
		return mean;
	return 0;
}

uint64_t idle_gov_predict(const struct idle_gov *g, uint64_t sleep_ns)
{
	uint64_t predicted = sleep_ns, typical = typical_interval(g);

	if (sleep_ns != UINT64_MAX) {
		uint32_t corr = g->correction[bucket_of(sleep_ns)];

		/* sleep_ns * corr / ONE without overflow for any sleep_ns */
		predicted = (sleep_ns / IDLE_CORR_ONE) * corr + (sleep_ns % IDLE_CORR_ONE) * corr / IDLE_CORR_ONE;
	}
	if (typical && typical < predicted)
		predicted = typical;
	return predicted;
}

int idle_gov_select(struct idle_gov *g, const struct idle_state *st, int nr, uint64_t sleep_ns,
		    uint64_t latency_limit_ns)
{
	uint64_t predicted = idle_gov_predict(g, sleep_ns);
	int best = 0;

	KASSERT(nr >= 1 && nr <= IDLE_MAX_STATES);
	for (int i = 1; i < nr; i++) {
		/* As Linux's DT idle states: target residency = min-residency, latency = entry + exit. */
		if (st[i].min_residency_ns > predicted || st[i].entry_ns + st[i].exit_ns > latency_limit_ns)
			continue;
		best = i;
	}
	g->last_expected = sleep_ns;
	g->last_bucket = bucket_of(sleep_ns);
	return best;
}

/* m * IDLE_CORR_ONE / e for m <= e, e > 0, in one 32-bit division (both shifted below 2^22 first). */
static uint32_t corr_ratio(uint64_t m, uint64_t e)
{
	unsigned int shift = e >> 22 ? 42u - (unsigned int)__builtin_clzll(e) : 0;

	return ((uint32_t)(m >> shift) * IDLE_CORR_ONE) / (uint32_t)(e >> shift);
}

void idle_gov_reflect(struct idle_gov *g, uint64_t measured_ns)
{
	g->history[g->hist_pos] = measured_ns ? measured_ns : 1;
	g->hist_pos = (g->hist_pos + 1) % IDLE_HISTORY;
	if (g->last_expected != UINT64_MAX && g->last_expected > 0) {
		uint64_t m = measured_ns < g->last_expected ? measured_ns : g->last_expected;
		/* measured/expected in [0, 1], x ONE; an exponential average over ~8 idles */
		uint32_t ratio = corr_ratio(m, g->last_expected);
		uint32_t *c = &g->correction[g->last_bucket];

		/* Round toward the new sample, so the factor can climb back to exactly ONE. */
		*c = ratio > *c ? (*c * 7 + ratio + 7) / 8 : (*c * 7 + ratio) / 8;
		if (*c == 0)
			*c = 1;	/* never collapse a range to "always instant" */
	}
}
