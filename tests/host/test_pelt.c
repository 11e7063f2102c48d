/*
 * PELT against independent references:
 * - a floating-point model of the geometric series, stepped one 1024 ns
 *   unit at a time (ref_step), or in closed form for gaps too long to step
 *   (ref_jump);
 * - the seed's per-period loop (decay by 4008/4096 per period): the O(1)
 *   form gives the same ratios within 1%, at a cost that, unlike the
 *   loop's, does not grow with the time between updates;
 * - hand-derived exact values and bounds recomputed from first principles.
 * The host tool build/host/pelt is run through popen() and checked the same
 * way, including its exit status 2 on bad input.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ktest.h"
#include "kernel/sched/pelt.h"

#define UNIT_NS 1024ull
#define PERIOD_NS (1024ull * 1024ull)
#define PELT_TOOL "build/host/pelt"

static double y_per_period(void)
{
	return pow(2.0, -1.0 / 32.0);
}

/* ---------------------------------------------------------- float model */

struct ref {
	double sum, period, usage;
	uint64_t units_in_period;
	uint64_t last_ns;
	/*
	 * What truncation can have cost the integer code so far. An update
	 * crossing b boundaries computes decay(x + head, b) + periods_sum(b - 1):
	 * each term is off by less than 1 unit (2 once b >= 32 adds a shift),
	 * and the earlier error ages by y^b. Besides, full periods count
	 * 46718 / 46764 of their real weight: 0.1% (see model_near).
	 */
	double slack;
};

static void ref_init(struct ref *r, uint64_t now)
{
	*r = (struct ref){ 0.0, 0.0, 0.0, 0, now, 0.0 };
}

static void ref_account_truncation(struct ref *r, uint64_t boundaries)
{
	if (boundaries)
		r->slack = r->slack * pow(2.0, -(double)boundaries / 32.0) +
			   (boundaries >= 32 ? 4.0 : 2.0);
}

/* One unit at a time: accrue, and age everything at each period's end. */
static void ref_step(struct ref *r, uint64_t now, bool runnable, bool running)
{
	const double y = y_per_period();
	uint64_t units = (now - r->last_ns) / UNIT_NS, boundaries = 0;

	r->last_ns += units * UNIT_NS;
	for (; units; units--) {
		r->period += 1.0;
		if (runnable)
			r->sum += 1.0;
		if (running)
			r->usage += 1.0;
		if (++r->units_in_period == 1024) {
			r->units_in_period = 0;
			r->sum *= y;
			r->period *= y;
			r->usage *= y;
			boundaries++;
		}
	}
	ref_account_truncation(r, boundaries);
}

/* The same in closed form: sum_{k=1..p} 1024 y^k = 1024 y (1 - y^p) / (1 - y). */
static void ref_jump(struct ref *r, uint64_t now, bool runnable, bool running)
{
	const double y = y_per_period();
	uint64_t units = (now - r->last_ns) / UNIT_NS;
	uint64_t head = 1024 - r->units_in_period, periods, tail;
	double age, full;

	r->last_ns += units * UNIT_NS;
	if (units < head) {
		ref_step(r, r->last_ns, runnable, running);
		return;
	}
	periods = (units - head) / 1024;
	tail = (units - head) % 1024;
	age = pow(2.0, -(double)(periods + 1) / 32.0);
	full = 1024.0 * y * (1.0 - pow(2.0, -(double)periods / 32.0)) / (1.0 - y);
	r->period = (r->period + (double)head) * age + full + (double)tail;
	r->sum = runnable ? (r->sum + (double)head) * age + full + (double)tail : r->sum * age;
	r->usage = running ? (r->usage + (double)head) * age + full + (double)tail : r->usage * age;
	r->units_in_period = tail;
	ref_account_truncation(r, periods + 1);
}

static double ref_ratio(double sum, double period)
{
	return period > 0.0 ? 1024.0 * sum / period : 0.0;
}

static bool near(double got, double want, double rel, double abs_tol)
{
	double tol = fabs(want) * rel;

	if (tol < abs_tol)
		tol = abs_tol;
	return fabs(got - want) <= tol;
}

/* An integer result against the model, within what truncation explains. */
static bool model_near(uint32_t got, double want, const struct ref *r)
{
	return fabs((double)got - want) <= 0.0011 * want + r->slack;
}

/* Bounds every published state must satisfy (pelt.h). */
static bool sane(const struct sched_avg *sa)
{
	return sa->usage_avg_sum <= sa->runnable_avg_sum &&
	       sa->runnable_avg_sum <= sa->runnable_avg_period &&
	       sa->period_contrib < 1024 &&
	       sa->runnable_avg_period >= sa->period_contrib &&
	       sa->runnable_avg_period - sa->period_contrib <= PELT_HISTORY_MAX &&
	       sa->runnable_avg_period <= PELT_SUM_MAX;
}

/* ---------------------------------------------------- seed's loop model */

struct seed_avg {
	uint64_t sum, period, usage, in_period, last_ns;
};

static uint64_t seed_decay_load(uint64_t val, uint64_t n)
{
	for (; n && val; n--) {
		val *= 4008;
		val >>= 12;
	}
	return val;
}

/*
 * Patch 01/16's __update_entity_runnable_avg plus 15/16's usage, with the
 * two corrections pelt.c makes (position in the period tracked, sub-unit
 * time kept) so that only the per-period loop differs. Returns the loop's
 * iteration count.
 */
static uint64_t seed_update(struct seed_avg *sa, uint64_t now, bool runnable, bool running)
{
	uint64_t delta = (now - sa->last_ns) >> 10, delta_w, loops = 0;

	sa->last_ns += delta << 10;
	delta_w = sa->in_period;
	if (delta + delta_w >= 1024) {
		delta_w = 1024 - delta_w;
		do {
			if (runnable)
				sa->sum += delta_w;
			if (running)
				sa->usage += delta_w;
			sa->period += delta_w;
			sa->sum = seed_decay_load(sa->sum, 1);
			sa->period = seed_decay_load(sa->period, 1);
			sa->usage = seed_decay_load(sa->usage, 1);
			delta -= delta_w;
			delta_w = 1024;
			loops++;
		} while (delta >= 1024);
		sa->in_period = 0;
	}
	if (runnable)
		sa->sum += delta;
	if (running)
		sa->usage += delta;
	sa->period += delta;
	sa->in_period += delta;
	return loops;
}

/* --------------------------------------------------------- decay, sums */

KT_CASE(decay_table_is_floor_of_2_pow_32_y_n)
{
	/*
	 * decay(2^32 - 1, n) = floor((2^32 - 1) * m / 2^32) = m - 1 for the
	 * table's multiplier m, so the table can be read back exactly.
	 */
	for (unsigned int n = 1; n < 32; n++) {
		long double exact = ldexpl(powl(2.0L, -(long double)n / 32.0L), 32);
		long double fl = floorl(exact);
		uint64_t m = (uint64_t)pelt_decay(UINT32_MAX, n) + 1;

		/* long double decides the floor unless it is this close to an integer */
		KT_ASSERT_MSG(exact - fl > 1e-9L && fl + 1 - exact > 1e-9L, "n=%u ambiguous", n);
		KT_ASSERT_MSG(m == (uint64_t)fl, "n=%u: table 0x%llx, 2^32*y^n = 0x%llx", n,
			      (unsigned long long)m, (unsigned long long)fl);
	}
}

KT_CASE(decay_matches_float_within_two_units)
{
	static const uint32_t vals[] = { 0, 1, 2, 1023, 1024, 47742, 48000, 65535,
					 1000003, 0x7fffffff, 0x80000000u, UINT32_MAX };
	uint64_t rnd = 0x9e3779b97f4a7c15ull;

	for (unsigned int i = 0; i < sizeof(vals) / sizeof(vals[0]) + 200; i++) {
		uint32_t v;

		if (i < sizeof(vals) / sizeof(vals[0])) {
			v = vals[i];
		} else {
			rnd = rnd * 6364136223846793005ull + 1442695040888963407ull;
			v = (uint32_t)(rnd >> 32) >> (rnd & 31);
		}
		for (uint64_t n = 0; n < 1100; n++) {
			long double exact = (long double)v * powl(2.0L, -(long double)n / 32.0L);
			uint32_t got = pelt_decay(v, n);

			KT_ASSERT_MSG((long double)got <= exact && exact - got < 2.0L,
				      "decay(%u, %llu) = %u, exact %.3Lf", v,
				      (unsigned long long)n, got, exact);
		}
		KT_ASSERT_EQ(pelt_decay(v, 0), v);
		KT_ASSERT_EQ(pelt_decay(v, 32), v >> 1);
		KT_ASSERT_EQ(pelt_decay(v, 320), v >> 10);
		KT_ASSERT_EQ(pelt_decay(v, 1024), 0);
		KT_ASSERT_EQ(pelt_decay(v, 1ull << 40), 0);
		KT_ASSERT_EQ(pelt_decay(v, UINT64_MAX), 0);
	}
}

KT_CASE(periods_sum_matches_series)
{
	const double y = y_per_period();
	double series = 0.0;
	uint32_t prev = 0;

	KT_ASSERT_EQ(pelt_periods_sum(0), 0);
	for (uint64_t n = 1; n <= 2000; n++) {
		uint32_t got = pelt_periods_sum(n);

		series += 1024.0 * pow(y, (double)n);
		/* The integer limit is 46718 against the real 46764: 0.1% low. */
		KT_ASSERT_MSG(got <= series + 1e-9 && near(got, series, 0.0011, 2.0),
			      "n=%llu: %u vs series %.2f", (unsigned long long)n, got, series);
		KT_ASSERT_MSG(got >= prev, "not monotonic at n=%llu", (unsigned long long)n);
		prev = got;
	}
	KT_ASSERT_EQ(pelt_periods_sum(1), 1002);	/* 46718 - floor(45716.97) */
	KT_ASSERT_EQ(pelt_periods_sum(1000), PELT_LOAD_AVG_MAX - 1024);
	KT_ASSERT_EQ(pelt_periods_sum(UINT64_MAX), PELT_LOAD_AVG_MAX - 1024);
}

KT_CASE(load_avg_max_constants)
{
	/* Mainline's recursion x = x*y + 1024 (truncated) with our y. */
	uint32_t x = 0, prev = UINT32_MAX;
	unsigned int steps = 0;
	struct sched_avg sa;

	while (x != prev) {
		prev = x;
		x = pelt_decay(x, 1) + 1024;
		steps++;
		KT_ASSERT(steps < 1000);
	}
	KT_ASSERT_EQ(x, PELT_LOAD_AVG_MAX);
	/* steps - 1 updates reached the max: ages 0..steps-2 (mainline: 0..345). */
	KT_ASSERT_MSG(steps - 2 >= PELT_LOAD_AVG_MAX_N && steps - 2 <= PELT_LOAD_AVG_MAX_N + 2,
		      "saturated after %u periods", steps - 1);
	KT_ASSERT(1024.0 / (1.0 - y_per_period()) > PELT_LOAD_AVG_MAX);

	/* After LOAD_AVG_MAX_N fully runnable periods the history is within 0.1%. */
	pelt_init(&sa, 0);
	pelt_update(&sa, PELT_LOAD_AVG_MAX_N * PERIOD_NS, true, true);
	KT_ASSERT_EQ(sa.period_contrib, 0);
	KT_ASSERT(sa.runnable_avg_period <= PELT_LOAD_AVG_MAX - 1024);
	KT_ASSERT(sa.runnable_avg_period * 1000ull >= (PELT_LOAD_AVG_MAX - 1024) * 999ull);
}

/*
 * The history H = period - period_contrib only changes at a roll-over, to
 * f_p(H) = decay(H + 1024, p + 1) + periods_sum(p) (p full periods skipped),
 * which is monotonic in H. So the largest reachable H is the least fixpoint
 * of H = max(H, max_p f_p(H)) from H = 0, and each step of the iteration is
 * itself reachable: the bound is exact.
 */
KT_CASE(history_bound_is_exact)
{
	uint32_t h = 0;

	for (;;) {
		uint32_t next = h;

		for (uint32_t p = 0; p <= 1100; p++) {
			uint32_t v = pelt_decay(h + 1024, p + 1) + pelt_periods_sum(p);

			if (v > next)
				next = v;
		}
		if (next == h)
			break;
		h = next;
	}
	KT_ASSERT_EQ(h, PELT_HISTORY_MAX);
	KT_ASSERT_EQ(PELT_SUM_MAX, PELT_HISTORY_MAX + 1023);
}

/* ------------------------------------------------------ update semantics */

KT_CASE(exact_small_steps)
{
	struct sched_avg sa;

	pelt_init(&sa, 5000);
	KT_ASSERT_EQ(sa.runnable_avg_period, 0);
	/* 1023 ns: less than a unit, nothing happens and nothing is lost. */
	KT_ASSERT_EQ(pelt_update(&sa, 6023, true, true), 0);
	KT_ASSERT_EQ(sa.runnable_avg_period, 0);
	KT_ASSERT_EQ(sa.last_update_ns, 5000);
	KT_ASSERT_EQ(pelt_update(&sa, 6024, true, true), 0);
	KT_ASSERT_EQ(sa.runnable_avg_period, 1);
	KT_ASSERT_EQ(sa.last_update_ns, 6024);

	pelt_init(&sa, 0);
	/* 500 units running. */
	KT_ASSERT_EQ(pelt_update(&sa, 500 * UNIT_NS, true, true), 0);
	KT_ASSERT_EQ(sa.runnable_avg_sum, 500);
	KT_ASSERT_EQ(sa.usage_avg_sum, 500);
	KT_ASSERT_EQ(sa.runnable_avg_period, 500);
	/* 300 units runnable, waiting. */
	KT_ASSERT_EQ(pelt_update(&sa, 800 * UNIT_NS, true, false), 0);
	KT_ASSERT_EQ(sa.runnable_avg_sum, 800);
	KT_ASSERT_EQ(sa.usage_avg_sum, 500);
	KT_ASSERT_EQ(sa.runnable_avg_period, 800);
	/* 224 units asleep close the period: all age by y (floor(x * 2^(-1/32))). */
	KT_ASSERT_EQ(pelt_update(&sa, PERIOD_NS, false, false), 1);
	KT_ASSERT_EQ(sa.runnable_avg_period, 1002);	/* 1024 y = 1002.04 */
	KT_ASSERT_EQ(sa.runnable_avg_sum, 782);		/* 800 y = 782.84 */
	KT_ASSERT_EQ(sa.usage_avg_sum, 489);		/* 500 y = 489.28 */
	KT_ASSERT_EQ(sa.period_contrib, 0);
	/* 32 periods asleep halve the sums; the period gains 1024 y^k, k=1..31. */
	KT_ASSERT_EQ(pelt_update(&sa, 33 * PERIOD_NS, false, false), 32);
	KT_ASSERT_EQ(sa.runnable_avg_sum, 391);
	KT_ASSERT_EQ(sa.usage_avg_sum, 244);
	KT_ASSERT(sane(&sa));
}

KT_CASE(sub_unit_time_is_not_lost)
{
	struct sched_avg sa, one;
	struct ref r;
	uint64_t now = 0;

	pelt_init(&sa, 0);
	/* 600 steps of 1500 ns = 878.9 units; the seed would count 600. */
	for (int i = 0; i < 600; i++) {
		now += 1500;
		pelt_update(&sa, now, true, true);
	}
	KT_ASSERT_EQ(sa.runnable_avg_period, 900000 / 1024);
	KT_ASSERT_EQ(sa.last_update_ns, (900000 / 1024) * 1024);

	/* Across many periods: the same as one update, and as the model. */
	pelt_init(&sa, 0);
	ref_init(&r, 0);
	for (int i = 0; i < 100000; i++) {
		now = (uint64_t)(i + 1) * 1500;
		pelt_update(&sa, now, true, i % 3 != 0);
		ref_step(&r, now, true, i % 3 != 0);
	}
	pelt_init(&one, 0);
	pelt_update(&one, now, true, true);
	KT_ASSERT_EQ(sa.last_update_ns, one.last_update_ns);
	KT_ASSERT_EQ(sa.period_contrib, one.period_contrib);
	KT_ASSERT_MSG(model_near(sa.runnable_avg_period, r.period, &r) &&
		      model_near(sa.usage_avg_sum, r.usage, &r),
		      "period %u usage %u vs model %.1f %.1f", sa.runnable_avg_period,
		      sa.usage_avg_sum, r.period, r.usage);
	KT_ASSERT_EQ(sa.runnable_avg_sum, sa.runnable_avg_period);
}

static double seed_ratio(uint64_t sum, uint64_t period)
{
	return period ? 1024.0 * (double)sum / (double)period : 0.0;
}

KT_CASE(random_timeline_matches_model)
{
	struct sched_avg sa;
	struct ref r;
	struct seed_avg seed = { 0, 0, 0, 0, 0 };
	uint64_t rnd = 12345, now = 0;
	bool runnable = false, running = false;

	pelt_init(&sa, 0);
	ref_init(&r, 0);
	for (int i = 0; i < 3000; i++) {
		rnd = rnd * 6364136223846793005ull + 1442695040888963407ull;
		/* gaps from sub-unit to ~5 periods */
		now += (rnd >> 33) % (5 * PERIOD_NS) + 1;
		pelt_update(&sa, now, runnable, running);
		ref_step(&r, now, runnable, running);
		seed_update(&seed, now, runnable, running);
		KT_ASSERT_MSG(sane(&sa), "bounds broken at step %d", i);
		KT_ASSERT_EQ(sa.period_contrib, r.units_in_period);
		KT_ASSERT_MSG(model_near(sa.runnable_avg_period, r.period, &r) &&
			      model_near(sa.runnable_avg_sum, r.sum, &r) &&
			      model_near(sa.usage_avg_sum, r.usage, &r),
			      "step %d: %u/%u/%u vs model %.1f/%.1f/%.1f", i,
			      sa.runnable_avg_sum, sa.runnable_avg_period, sa.usage_avg_sum,
			      r.sum, r.period, r.usage);
		/*
		 * The seed's 4008/4096 per period is a slightly smaller y (by
		 * 0.006%, so 0.6% after 100 periods of age): compare what the
		 * scheduler uses, the ratios, within 1%.
		 */
		KT_ASSERT_MSG(fabs(pelt_runnable_ratio(&sa) - seed_ratio(seed.sum, seed.period)) <= 10.24 &&
			      fabs(pelt_usage_ratio(&sa) - seed_ratio(seed.usage, seed.period)) <= 10.24,
			      "step %d: %u/%u/%u vs seed loop %llu/%llu/%llu", i,
			      sa.runnable_avg_sum, sa.runnable_avg_period, sa.usage_avg_sum,
			      (unsigned long long)seed.sum, (unsigned long long)seed.period,
			      (unsigned long long)seed.usage);
		switch ((rnd >> 20) % 3) {
		case 0: runnable = running = false; break;
		case 1: runnable = true; running = false; break;
		default: runnable = running = true; break;
		}
	}
}

/*
 * A periodic task on an otherwise idle CPU, sampled every 100 us (the
 * transitions fall on samples): usage ratio follows the model within 1%
 * at every sample and its average over the last second is the duty cycle
 * within 1%.
 */
static bool duty_case(uint64_t cycle_us, unsigned int pct, char *why, size_t why_len)
{
	const uint64_t step_ns = 100000, total_ns = 3000000000ull;
	const uint64_t on_ns = cycle_us * 1000 * pct / 100;
	struct sched_avg sa;
	struct ref r;
	double avg = 0.0;
	unsigned long samples = 0;

	pelt_init(&sa, 0);
	ref_init(&r, 0);
	for (uint64_t t = 0; t < total_ns; t += step_ns) {
		bool on = t % (cycle_us * 1000) < on_ns;
		uint64_t next = t + step_ns;
		uint32_t ours;
		double want;

		pelt_update(&sa, next, on, on);
		ref_step(&r, next, on, on);
		ours = pelt_usage_ratio(&sa);
		want = ref_ratio(r.usage, r.period);
		if (next > 200000000ull && fabs(ours - want) > 0.01 * 1024) {
			snprintf(why, why_len, "cycle %llu us %u%%: t=%llu ratio %u vs model %.1f",
				 (unsigned long long)cycle_us, pct, (unsigned long long)next,
				 ours, want);
			return false;
		}
		if (next > total_ns - 1000000000ull) {
			avg += ours;
			samples++;
		}
	}
	avg /= (double)samples;
	if (fabs(avg - 1024.0 * pct / 100.0) > 0.01 * 1024) {
		snprintf(why, why_len, "cycle %llu us %u%%: average ratio %.1f/1024",
			 (unsigned long long)cycle_us, pct, avg);
		return false;
	}
	if (sa.runnable_avg_sum != sa.usage_avg_sum) {
		snprintf(why, why_len, "runnable %u and usage %u differ for a lone task",
			 sa.runnable_avg_sum, sa.usage_avg_sum);
		return false;
	}
	/* Far from the 25% line the light-task test is stable. */
	if ((pct <= 15 && !pelt_is_light(&sa)) || (pct >= 35 && pelt_is_light(&sa))) {
		snprintf(why, why_len, "cycle %llu us %u%%: is_light %d",
			 (unsigned long long)cycle_us, pct, pelt_is_light(&sa));
		return false;
	}
	return true;
}

KT_CASE(duty_cycle_settles_to_duty)
{
	static const uint64_t cycles_us[] = { 10000, 16000 };
	char why[200];

	for (unsigned int c = 0; c < 2; c++)
		for (unsigned int pct = 5; pct <= 95; pct += 5)
			KT_ASSERT_MSG(duty_case(cycles_us[c], pct, why, sizeof(why)), "%s", why);
}

/* A saturated, fully running entity whose last update ends a period. */
static void saturate(struct sched_avg *sa, uint64_t *now)
{
	pelt_init(sa, 0);
	*now = 1000 * PERIOD_NS;
	pelt_update(sa, *now, true, true);
}

KT_CASE(sleep_decays_by_y_pow_k)
{
	struct sched_avg base, sa;
	uint64_t t0;

	saturate(&base, &t0);
	KT_ASSERT_EQ(base.period_contrib, 0);
	KT_ASSERT_EQ(base.runnable_avg_sum, PELT_LOAD_AVG_MAX - 1024);
	for (uint64_t k = 1; k <= 2000; k++) {
		double want = base.runnable_avg_sum * pow(2.0, -(double)k / 32.0);

		sa = base;
		KT_ASSERT_EQ(pelt_update(&sa, t0 + k * PERIOD_NS, false, false), (int)k);
		/* 0.5%, or the two units one truncating decay may lose */
		KT_ASSERT_MSG(near(sa.runnable_avg_sum, want, 0.005, 2.0) &&
			      near(sa.usage_avg_sum, want, 0.005, 2.0),
			      "k=%llu: sum %u usage %u, want %.2f", (unsigned long long)k,
			      sa.runnable_avg_sum, sa.usage_avg_sum, want);
		/* Time asleep still counts as tracked time. */
		KT_ASSERT(near(sa.runnable_avg_period, base.runnable_avg_period, 0.0011, 2.0));
	}

	/* The same sleep seen by a 1 ms tick: one truncation per period. */
	for (uint64_t k = 1; k <= 64; k++) {
		double want = base.runnable_avg_sum * pow(2.0, -(double)k / 32.0);

		sa = base;
		for (uint64_t i = 1; i <= k; i++)
			pelt_update(&sa, t0 + i * PERIOD_NS, false, false);
		KT_ASSERT_MSG(near(sa.runnable_avg_sum, want, 0.005, 2.0),
			      "ticked k=%llu: sum %u, want %.2f", (unsigned long long)k,
			      sa.runnable_avg_sum, want);
	}
}

static bool gap_case(uint64_t start_ns, uint64_t gap_ns, bool runnable, bool running,
		     char *why, size_t why_len)
{
	struct sched_avg sa;
	struct ref r;
	uint64_t now = start_ns, units, head, boundaries, tail;
	int crossed;

	/* A partial history: 40 ms of a 30% duty cycle, ending mid-period. */
	pelt_init(&sa, start_ns);
	ref_init(&r, start_ns);
	for (int i = 0; i < 400; i++) {
		bool on = i % 10 < 3;

		now += 100000;
		pelt_update(&sa, now, on, on);
		ref_step(&r, now, on, on);
	}
	if (sa.period_contrib == 0) {
		snprintf(why, why_len, "history should end mid-period");
		return false;
	}
	units = (gap_ns + (now - sa.last_update_ns)) / UNIT_NS;
	head = 1024 - sa.period_contrib;
	boundaries = units < head ? 0 : (units - head) / 1024 + 1;
	tail = units < head ? sa.period_contrib + units : (units - head) % 1024;

	crossed = pelt_update(&sa, now + gap_ns, runnable, running);
	ref_jump(&r, now + gap_ns, runnable, running);
	if (crossed != (boundaries > INT_MAX ? INT_MAX : (int)boundaries) ||
	    sa.period_contrib != tail || !sane(&sa) ||
	    !model_near(sa.runnable_avg_period, r.period, &r) ||
	    !model_near(sa.runnable_avg_sum, r.sum, &r) ||
	    !model_near(sa.usage_avg_sum, r.usage, &r)) {
		snprintf(why, why_len,
			 "gap %llu ns (%d%d): crossed %d want %llu, contrib %u want %llu, "
			 "%u/%u/%u vs model %.1f/%.1f/%.1f",
			 (unsigned long long)gap_ns, runnable, running, crossed,
			 (unsigned long long)boundaries, sa.period_contrib,
			 (unsigned long long)tail, sa.runnable_avg_sum,
			 sa.runnable_avg_period, sa.usage_avg_sum, r.sum, r.period, r.usage);
		return false;
	}
	return true;
}

KT_CASE(long_gaps)
{
	static const uint64_t gaps[] = {
		1000000000ull,			/* 1 s */
		3600ull * 1000000000ull,	/* 1 hour */
		1ull << 40,
		1ull << 62,
	};
	char why[300];

	for (unsigned int i = 0; i < 4; i++) {
		KT_ASSERT_MSG(gap_case(0, gaps[i], false, false, why, sizeof(why)), "%s", why);
		KT_ASSERT_MSG(gap_case(0, gaps[i], true, false, why, sizeof(why)), "%s", why);
		KT_ASSERT_MSG(gap_case(0, gaps[i], true, true, why, sizeof(why)), "%s", why);
		KT_ASSERT_MSG(gap_case(123456789, gaps[i], true, true, why, sizeof(why)), "%s", why);
	}
	/* The longest gap there is (times compare modulo 2^64): the crossing count saturates. */
	KT_ASSERT_MSG(gap_case(0, (uint64_t)INT64_MAX - 40000000ull, true, true, why, sizeof(why)),
		      "%s", why);
}

KT_CASE(long_gap_results_exact)
{
	struct sched_avg sa;

	/* Fully decayed history: only the closed-form limit and the tail remain. */
	pelt_init(&sa, 0);
	pelt_update(&sa, 300 * UNIT_NS, true, true);
	pelt_update(&sa, 300 * UNIT_NS + 3600ull * 1000000000ull, false, false);
	KT_ASSERT_EQ(sa.runnable_avg_sum, 0);
	KT_ASSERT_EQ(sa.usage_avg_sum, 0);
	/* 3.6e12 ns = 3515625000 units; head 724, tail (units - 724) % 1024 */
	KT_ASSERT_EQ(sa.period_contrib, (3515625000ull - 724) % 1024);
	KT_ASSERT_EQ(sa.runnable_avg_period, PELT_LOAD_AVG_MAX - 1024 + sa.period_contrib);
	KT_ASSERT(pelt_is_light(&sa));
	pelt_update(&sa, sa.last_update_ns + (1ull << 40), true, true);
	KT_ASSERT_EQ(sa.runnable_avg_sum, sa.runnable_avg_period);
	KT_ASSERT_EQ(sa.usage_avg_sum, sa.runnable_avg_period);
	KT_ASSERT_EQ(sa.runnable_avg_period, PELT_LOAD_AVG_MAX - 1024 + sa.period_contrib);
}

KT_CASE(clock_going_backwards_resyncs)
{
	struct sched_avg sa, before;

	pelt_init(&sa, 10 * PERIOD_NS);
	pelt_update(&sa, 10 * PERIOD_NS + 700 * UNIT_NS, true, true);
	before = sa;
	KT_ASSERT_EQ(pelt_update(&sa, 5 * PERIOD_NS, true, true), 0);
	KT_ASSERT_EQ(sa.last_update_ns, 5 * PERIOD_NS);
	KT_ASSERT_EQ(sa.runnable_avg_sum, before.runnable_avg_sum);
	KT_ASSERT_EQ(sa.runnable_avg_period, before.runnable_avg_period);
	/* and goes on from there */
	KT_ASSERT_EQ(pelt_update(&sa, 5 * PERIOD_NS + 324 * UNIT_NS, true, true), 1);
	KT_ASSERT_EQ(sa.period_contrib, 0);
}

/* Times compare modulo 2^64 (include/kernel/sched/pelt.h): a wrap is time going on, not back. */
KT_CASE(clock_compares_modulo_2_64)
{
	struct sched_avg sa;

	pelt_init(&sa, UINT64_MAX - 600);
	/* 1100 ns on, across the wrap: one unit accounted, the rest carried. */
	KT_ASSERT_EQ(pelt_update(&sa, 499, true, true), 0);
	KT_ASSERT_EQ(sa.runnable_avg_period, 1);
	KT_ASSERT_EQ(sa.last_update_ns, UINT64_MAX - 600 + UNIT_NS);
	/* Half the range back is "before": resync, nothing accounted. */
	KT_ASSERT_EQ(pelt_update(&sa, sa.last_update_ns - (1ull << 63), true, true), 0);
	KT_ASSERT_EQ(sa.runnable_avg_period, 1);
	KT_ASSERT_EQ(sa.last_update_ns, UINT64_MAX - 600 + UNIT_NS - (1ull << 63));
}

/* ------------------------------------------------------------ O(1) cost */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Seconds per update for @n updates @gap_ns apart (best of @rounds). */
static double time_updates(bool seed_loop, unsigned long n, uint64_t gap_ns, int rounds)
{
	double best = 1e30;

	for (int round = 0; round < rounds; round++) {
		struct sched_avg sa;
		struct seed_avg seed = { 0, 0, 0, 0, 0 };
		uint64_t now = 0, sink = 0;
		double t0;

		pelt_init(&sa, 0);
		t0 = now_s();
		for (unsigned long i = 0; i < n; i++) {
			now += gap_ns;
			/* alternate states so the sums stay in play */
			if (seed_loop)
				sink += seed_update(&seed, now, i & 1, i & 1);
			else
				sink += (uint64_t)pelt_update(&sa, now, i & 1, i & 1);
		}
		t0 = now_s() - t0;
		if (t0 < best)
			best = t0;
		/* keep the work observable */
		if (sink == 0 && sa.runnable_avg_period == 12345)
			printf("#\n");
	}
	return best / (double)n;
}

KT_CASE(decay_cost_independent_of_gap)
{
	double short_gap = time_updates(false, 1000000, 1000000, 5);
	double long_gap = time_updates(false, 1000000, 1000000000, 5);

	KT_ASSERT_MSG(long_gap <= 3.0 * short_gap,
		      "1e9 ns gaps %.1f ns/update vs 1e6 ns gaps %.1f ns/update",
		      long_gap * 1e9, short_gap * 1e9);
}

/* Control: the same measurement does catch a per-period loop. */
KT_CASE(control_seed_loop_cost_grows_with_gap)
{
	double short_gap = time_updates(true, 20000, 1000000, 3);
	double long_gap = time_updates(true, 20000, 1000000000, 3);

	KT_ASSERT_MSG(long_gap > 3.0 * short_gap,
		      "seed loop: 1e9 ns gaps %.1f ns/update vs 1e6 ns gaps %.1f ns/update",
		      long_gap * 1e9, short_gap * 1e9);
}

/* --------------------------------------------------------------- helpers */

KT_CASE(ratios)
{
	struct sched_avg sa;

	KT_ASSERT_EQ(pelt_ratio(0, 0), 0);
	KT_ASSERT_EQ(pelt_ratio(5, 5), 1024);
	KT_ASSERT_EQ(pelt_ratio(1, 2), 512);
	KT_ASSERT_EQ(pelt_ratio(1, 3), 341);
	KT_ASSERT_EQ(pelt_ratio(PELT_SUM_MAX, PELT_SUM_MAX), 1024);
	KT_ASSERT_EQ(pelt_ratio(UINT32_MAX - 1, UINT32_MAX), 1023);

	pelt_init(&sa, 0);
	KT_ASSERT_EQ(pelt_runnable_ratio(&sa), 0);
	KT_ASSERT_EQ(pelt_usage_ratio(&sa), 0);
	pelt_update(&sa, 300 * UNIT_NS, true, true);
	pelt_update(&sa, 600 * UNIT_NS, true, false);
	pelt_update(&sa, 1000 * UNIT_NS, false, false);
	KT_ASSERT_EQ(pelt_runnable_ratio(&sa), 600 * 1024 / 1000);
	KT_ASSERT_EQ(pelt_usage_ratio(&sa), 300 * 1024 / 1000);
}

/* One period's history from 0: running up to @running units, runnable to @runnable, idle to @total. */
static void one_period(struct sched_avg *sa, uint32_t running, uint32_t runnable, uint32_t total)
{
	pelt_init(sa, 0);
	pelt_update(sa, (uint64_t)running * UNIT_NS, true, true);
	pelt_update(sa, (uint64_t)runnable * UNIT_NS, true, false);
	pelt_update(sa, (uint64_t)total * UNIT_NS, false, false);
}

KT_CASE(add_usage_raises_the_ratio_within_the_bounds)
{
	struct sched_avg sa;

	/* 25% running, 50% runnable over 1000 units: +50% of the history running. */
	one_period(&sa, 250, 500, 1000);
	pelt_add_usage(&sa, 512);
	KT_ASSERT_EQ(sa.usage_avg_sum, 750);
	KT_ASSERT_EQ(sa.runnable_avg_sum, 1000);	/* raised with it, capped by the period */
	KT_ASSERT_EQ(pelt_usage_ratio(&sa), 750 * 1024 / 1000);
	/* Room below the period: both sums rise by the share (10% + 25% running, 20% + 25% runnable). */
	one_period(&sa, 100, 200, 1000);
	pelt_add_usage(&sa, 256);
	KT_ASSERT_EQ(sa.usage_avg_sum, 350);
	KT_ASSERT_EQ(sa.runnable_avg_sum, 450);
	/* Capped at 100%; usage never above runnable. */
	pelt_add_usage(&sa, 1024);
	KT_ASSERT_EQ(sa.usage_avg_sum, 1000);
	KT_ASSERT_EQ(pelt_usage_ratio(&sa), 1024);
	/* Nothing to add to: an empty history stays empty. */
	pelt_init(&sa, 0);
	pelt_add_usage(&sa, 512);
	KT_ASSERT_EQ(pelt_usage_ratio(&sa), 0);
	/* It decays as any history: running on, the ratio keeps rising from there. */
	pelt_init(&sa, 0);
	pelt_update(&sa, 500 * 1024 * UNIT_NS, true, false);	/* on a period boundary, history saturated */
	pelt_add_usage(&sa, 512);
	KT_ASSERT(pelt_usage_ratio(&sa) >= 511 && pelt_usage_ratio(&sa) <= 512);
	pelt_update(&sa, (500 + 32) * 1024 * UNIT_NS, true, true);	/* a half-life running: 1 - 0.5 / 2 */
	KT_ASSERT(pelt_usage_ratio(&sa) >= 766 && pelt_usage_ratio(&sa) <= 768);
}

KT_CASE(load_contrib)
{
	struct sched_avg sa;
	uint64_t now;

	pelt_init(&sa, 0);
	KT_ASSERT_EQ(pelt_load_contrib(&sa, 1024), 0);
	pelt_update(&sa, 999 * UNIT_NS, true, true);
	/* 1024 * 999 / 1000 */
	KT_ASSERT_EQ(pelt_load_contrib(&sa, 1024), 1022);

	/* nice -20 weight on a saturated sum: 88761 * 47741 overflows 32 bits */
	saturate(&sa, &now);
	pelt_update(&sa, now + 1023 * UNIT_NS, true, true);
	KT_ASSERT_EQ(sa.runnable_avg_period, PELT_LOAD_AVG_MAX - 1);
	KT_ASSERT_EQ(pelt_load_contrib(&sa, 88761),
		     (unsigned long)(88761ull * (PELT_LOAD_AVG_MAX - 1) / PELT_LOAD_AVG_MAX));
	KT_ASSERT_EQ(pelt_load_contrib(&sa, 88761), 88759);
	KT_ASSERT_EQ(pelt_load_contrib(&sa, 0), 0);
}

KT_CASE(light_task_threshold)
{
	struct sched_avg sa;

	pelt_init(&sa, 0);
	KT_ASSERT(!pelt_is_light(&sa));		/* no history: 0 < 0 is false */
	pelt_update(&sa, 249 * UNIT_NS, true, true);
	pelt_update(&sa, 1000 * UNIT_NS, false, false);
	KT_ASSERT(pelt_is_light(&sa));		/* 249 / 1000 */
	pelt_init(&sa, 0);
	pelt_update(&sa, 250 * UNIT_NS, true, true);
	pelt_update(&sa, 1000 * UNIT_NS, false, false);
	KT_ASSERT(!pelt_is_light(&sa));		/* exactly 25% is not light */
	/* runnable but waiting does not count as usage */
	pelt_init(&sa, 0);
	pelt_update(&sa, 100 * UNIT_NS, true, true);
	pelt_update(&sa, 900 * UNIT_NS, true, false);
	pelt_update(&sa, 1000 * UNIT_NS, false, false);
	KT_ASSERT(pelt_is_light(&sa));
	KT_ASSERT_EQ(sa.runnable_avg_sum, 900);
}

/*
 * pelt_stays_light(): wherever the entity's history stands (random
 * timelines, many states near the 25% line), if it holds then the average
 * after any sleep, from a fraction of a unit to seconds, is light. And it
 * is not vacuous: it holds for most light states away from the line.
 */
KT_CASE(stays_light_survives_any_sleep)
{
	static const uint64_t sleeps_ns[] = { 1, 1023, 1024, 5000, 100000, 1000000, 1048576, 1049600,
					      2097151, 3000000, 33554432, 100000000, 1000000000, 10000000000ull };
	uint32_t rnd = 12345;
	unsigned long held = 0, light = 0;

	for (int trial = 0; trial < 20000; trial++) {
		struct sched_avg sa;
		uint64_t now = 0;
		/* Duty around 25%: the states where the margin matters. */
		unsigned int duty = 15 + (unsigned int)(trial % 21);

		pelt_init(&sa, 0);
		for (int step = 0; step < 40 + trial % 60; step++) {
			bool on;

			rnd = rnd * 1103515245u + 12345u;
			on = (rnd >> 16) % 100 < duty;
			now += 1 + (rnd >> 8) % 3000000;
			pelt_update(&sa, now, on, on);
		}
		if (pelt_is_light(&sa))
			light++;
		if (!pelt_stays_light(&sa))
			continue;
		held++;
		KT_ASSERT(pelt_is_light(&sa));
		for (size_t i = 0; i < sizeof(sleeps_ns) / sizeof(sleeps_ns[0]); i++) {
			struct sched_avg after = sa;

			pelt_update(&after, now + sleeps_ns[i], false, false);
			KT_ASSERT_MSG(pelt_is_light(&after), "trial %d: stays_light held (usage %u period %u) but after %llu ns "
					"asleep usage %u period %u is not light", trial, sa.usage_avg_sum,
					sa.runnable_avg_period, (unsigned long long)sleeps_ns[i],
					after.usage_avg_sum, after.runnable_avg_period);
		}
	}
	KT_ASSERT(held > light / 2);
}

KT_CASE(buddy_busy)
{
	KT_ASSERT(!pelt_is_buddy_busy(0, 0, 0));
	KT_ASSERT(!pelt_is_buddy_busy(0, 100, 40));
	KT_ASSERT(!pelt_is_buddy_busy(0, 0, 1000));
	KT_ASSERT(pelt_is_buddy_busy(1, 0, 0));
	KT_ASSERT(!pelt_is_buddy_busy(500, 1000, 1));	/* 1000 > 1000: no */
	KT_ASSERT(pelt_is_buddy_busy(501, 1000, 1));
	KT_ASSERT(!pelt_is_buddy_busy(250, 1000, 2));
	KT_ASSERT(pelt_is_buddy_busy(251, 1000, 2));
	/* shifts that overflow 32 bits must not wrap */
	KT_ASSERT(pelt_is_buddy_busy(3, UINT32_MAX, 31));	/* 3 << 31 = 6442450944 */
	KT_ASSERT(!pelt_is_buddy_busy(1, 0x80000000u, 31));
	KT_ASSERT(pelt_is_buddy_busy(1, 0x7fffffffu, 31));
	KT_ASSERT(pelt_is_buddy_busy(1, UINT32_MAX, 32));
	KT_ASSERT(pelt_is_buddy_busy(1, UINT32_MAX, 33));
	KT_ASSERT(pelt_is_buddy_busy(1, UINT32_MAX, UINT_MAX));
	for (unsigned int nr = 0; nr < 31; nr++)
		KT_ASSERT_EQ(pelt_is_buddy_busy(1000, 47000, nr), (1000ull << nr) > 47000);
}

KT_CASE(snapshot_copies_consistently)
{
	struct sched_avg sa, snap;

	pelt_init(&sa, 77);
	pelt_update(&sa, 77 + 5 * PERIOD_NS + 333 * UNIT_NS + 5, true, false);
	memset(&snap, 0xa5, sizeof(snap));
	pelt_snapshot(&sa, &snap);
	KT_ASSERT_EQ(snap.runnable_avg_sum, sa.runnable_avg_sum);
	KT_ASSERT_EQ(snap.runnable_avg_period, sa.runnable_avg_period);
	KT_ASSERT_EQ(snap.usage_avg_sum, sa.usage_avg_sum);
	KT_ASSERT_EQ(snap.period_contrib, sa.period_contrib);
	KT_ASSERT_EQ(snap.last_update_ns, sa.last_update_ns);
	KT_ASSERT_EQ(snap.seq.sequence, 0);
	/* every update that changed something published one write section */
	KT_ASSERT_EQ(sa.seq.sequence, 2);
	KT_ASSERT_EQ(pelt_usage_ratio(&snap), 0);
	KT_ASSERT_EQ(pelt_runnable_ratio(&snap), pelt_runnable_ratio(&sa));
}

/* ------------------------------------------------------------- the tool */

struct tool_run {
	int status;		/* exit status, or -1 */
	char out[65536];
	size_t out_len;
};

/*
 * Runs the tool with @args on @input, given as a file argument or on stdin;
 * captures its stdout, or its stderr if @want_stderr.
 */
static bool run_tool(const char *args, const char *input, bool via_stdin, bool want_stderr,
		     struct tool_run *res)
{
	char path[] = "/tmp/test_pelt_XXXXXX";
	char cmd[512];
	FILE *f, *p;
	int fd, st;
	size_t n;

	if (access(PELT_TOOL, X_OK) != 0)
		return false;
	fd = mkstemp(path);
	if (fd < 0)
		return false;
	f = fdopen(fd, "w");
	if (!f)
		return false;
	fputs(input, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "%s %s %s%s %s", PELT_TOOL, args, via_stdin ? "< " : "",
		 path, want_stderr ? "2>&1 >/dev/null" : "2>/dev/null");
	p = popen(cmd, "r");
	if (!p) {
		unlink(path);
		return false;
	}
	n = fread(res->out, 1, sizeof(res->out) - 1, p);
	res->out[n] = '\0';
	res->out_len = n;
	st = pclose(p);
	unlink(path);
	res->status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	return true;
}

KT_CASE(tool_replays_timeline)
{
	static struct tool_run run;
	char input[8192];
	size_t len = 0;
	struct sched_avg sa;
	struct ref r;
	const char *line;
	bool runnable = false, running = false;
	uint64_t t = 0;
	int lines = 0;

	/* A 30% duty cycle with comments, blank lines and odd spacing. */
	len += (size_t)snprintf(input + len, sizeof(input) - len, "# header\n\n0 1 1\n");
	for (int i = 1; i <= 60; i++) {
		t = (uint64_t)i * 1000000;
		len += (size_t)snprintf(input + len, sizeof(input) - len, "%s%llu\t%d %d\n",
					i % 7 ? "" : "   ", (unsigned long long)t,
					i % 10 < 3, i % 10 < 3 && i % 2);
		if (i == 30)
			len += (size_t)snprintf(input + len, sizeof(input) - len,
						"   # mid comment\n  \n");
	}
	/* Same time again, then a long sleep. */
	len += (size_t)snprintf(input + len, sizeof(input) - len, "%llu 0 0\n%llu 0 0\n",
				(unsigned long long)t, (unsigned long long)(t + 1000000000ull));

	for (int via_stdin = 0; via_stdin < 2; via_stdin++) {
		KT_ASSERT_MSG(run_tool("", input, via_stdin, false, &run),
			      "cannot run %s (make host builds it)", PELT_TOOL);
		KT_ASSERT_EQ(run.status, 0);

		/* Replay the same input through the API and the model. */
		lines = 0;
		line = run.out;
		for (const char *in = input; *in;) {
			const char *eol = strchr(in, '\n');
			char buf[128];
			unsigned long long ti, o_t;
			unsigned int o_sum, o_period, o_usage;
			int nr, nrun;

			snprintf(buf, sizeof(buf), "%.*s", (int)(eol - in), in);
			in = eol + 1;
			if (sscanf(buf, "%llu %d %d", &ti, &nr, &nrun) != 3)
				continue;
			if (lines == 0) {
				pelt_init(&sa, ti);
				ref_init(&r, ti);
			} else {
				pelt_update(&sa, ti, runnable, running);
				ref_step(&r, ti, runnable, running);
			}
			runnable = nr;
			running = nrun;
			KT_ASSERT_MSG(sscanf(line, "%llu %u %u %u", &o_t, &o_sum, &o_period,
					     &o_usage) == 4, "output line %d: '%.40s'", lines, line);
			KT_ASSERT_EQ(o_t, ti);
			KT_ASSERT_EQ(o_sum, sa.runnable_avg_sum);
			KT_ASSERT_EQ(o_period, sa.runnable_avg_period);
			KT_ASSERT_EQ(o_usage, sa.usage_avg_sum);
			KT_ASSERT_MSG(model_near(o_period, r.period, &r) &&
				      model_near(o_sum, r.sum, &r) &&
				      model_near(o_usage, r.usage, &r),
				      "line %d: %u/%u/%u vs model %.1f/%.1f/%.1f", lines,
				      o_sum, o_period, o_usage, r.sum, r.period, r.usage);
			line = strchr(line, '\n');
			KT_ASSERT(line != NULL);
			line++;
			lines++;
		}
		KT_ASSERT_EQ(lines, 63);
		KT_ASSERT_EQ(*line, '\0');
	}
}

KT_CASE(tool_exact_output)
{
	static struct tool_run run;

	KT_ASSERT(run_tool("", "1000 1 1\n513000 1 0\n1049576 0 0\n", false, false, &run));
	KT_ASSERT_EQ(run.status, 0);
	/* 500 units runnable+running, then 524 runnable closing the period (x y). */
	KT_ASSERT_STREQ(run.out, "1000 0 0 0\n513000 500 500 500\n1049576 1002 1002 489\n");
}

KT_CASE(tool_rejects_bad_input)
{
	static const struct {
		const char *args, *input, *needle;
	} bad[] = {
		{ "", "0 1 1\nabc 1 1\n", "line 2" },
		{ "", "0 1 1\n100 2 0\n", "line 2" },
		{ "", "0 1 1\n100 1 x\n", "line 2" },
		{ "", "# c\n\n0 1 1\n100 0 1\n", "line 4" },
		{ "", "5000 1 1\n4999 1 1\n", "line 2" },
		{ "", "0 1\n", "line 1" },
		{ "", "0 1 1 1\n", "line 1" },
		{ "", "0 1 1\n-5 1 1\n", "line 2" },
		{ "", "0 1 1\n+5 1 1\n", "line 2" },
		{ "", "0 1 1\n18446744073709551616 1 1\n", "line 2" },
		{ "", "0 1 1\n100 01 1\n", "line 2" },
		{ "", "0 1 1\n100 1 1 # trailing\n", "line 2" },
		{ "--bogus", "0 1 1\n", "--bogus" },
		{ "-x", "0 1 1\n", "-x" },
	};
	static struct tool_run run;

	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		KT_ASSERT(run_tool(bad[i].args, bad[i].input, false, true, &run));
		KT_ASSERT_MSG(run.status == 2, "case %u: exit status %d", i, run.status);
		KT_ASSERT_MSG(strstr(run.out, bad[i].needle) != NULL,
			      "case %u: stderr '%s' lacks '%s'", i, run.out, bad[i].needle);
		/* exactly one line */
		KT_ASSERT_MSG(strchr(run.out, '\n') == run.out + run.out_len - 1,
			      "case %u: stderr not one line: '%s'", i, run.out);
	}
	/* Lines before the bad one are still reported on stdout. */
	KT_ASSERT(run_tool("", "0 1 1\n2048 1 1\nxyz\n", false, false, &run));
	KT_ASSERT_EQ(run.status, 2);
	KT_ASSERT_STREQ(run.out, "0 0 0 0\n2048 2 2 2\n");
}

KT_CASE(tool_help_and_empty_input)
{
	static struct tool_run run;

	KT_ASSERT(run_tool("--help", "", false, false, &run));
	KT_ASSERT_EQ(run.status, 0);
	KT_ASSERT(strncmp(run.out, "usage: pelt", 11) == 0);
	KT_ASSERT(run_tool("", "", true, false, &run));
	KT_ASSERT_EQ(run.status, 0);
	KT_ASSERT_EQ(run.out_len, 0);
	KT_ASSERT(run_tool("", "# only a comment\n\n", false, false, &run));
	KT_ASSERT_EQ(run.status, 0);
	KT_ASSERT_EQ(run.out_len, 0);
}
