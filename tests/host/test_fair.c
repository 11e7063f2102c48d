/*
 * The fair class (kernel/sched/fair.c) on a simulated CPU with a fake clock.
 *
 * struct sim mirrors kernel/sched/core.c call for call: sim_tick() is
 * sched_tick() (cfs_update_curr, then cfs_tick_should_preempt when more
 * than one is runnable), sim_schedule()/sim_sleep() are __schedule() for a
 * runnable or a sleeping prev (cfs_update_curr, cfs_dequeue(DEQ_SLEEP) if
 * it sleeps, cfs_pick_next, cfs_set_next), sim_activate() is
 * activate() and sim_wake() is wake_up() (vruntime made relative to the
 * queue's min_vruntime, re-based by cfs_enqueue(ENQ_WAKEUP | ENQ_MIGRATED)).
 * After every step: cfs_check(), the picked entity is the smallest
 * vruntime, and min_vruntime never moves back (wrap-safe).
 *
 * Shares are checked against the weight table within 1% over runs long
 * enough that the 1 ms tick granularity is well inside that.
 */
#define _GNU_SOURCE
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktest.h"
#include "kernel/sched/fair.h"

#define US 1000ull
#define MS 1000000ull
#define SEC 1000000000ull
#define TICK MS
#define MAXE 1024

struct sim {
	struct cfs_rq cfs;
	uint64_t now;
	uint64_t last_min;
	unsigned int min_wraps;		/* times the raw min_vruntime crossed 2^64 */
	uint64_t wrap_time;		/* now at the last crossing */
	unsigned long switches;
	struct sched_entity *all[MAXE];	/* every entity ever added */
	size_t n;
};

static void sim_init(struct sim *s)
{
	memset(s, 0, sizeof(*s));
	cfs_rq_init(&s->cfs);
	s->last_min = cfs_min_vruntime(&s->cfs);
}

/* Start from an arbitrary min_vruntime (an empty queue that ran for a while). */
static void sim_set_min(struct sim *s, uint64_t min)
{
	s->cfs.min_vruntime = min;
	s->last_min = min;
}

static void sim_check(struct sim *s)
{
	uint64_t min = cfs_min_vruntime(&s->cfs);

	KT_ASSERT_MSG(cfs_check(&s->cfs), "cfs_check failed at t=%llu ns",
		      (unsigned long long)s->now);
	KT_ASSERT_MSG(vruntime_delta(min, s->last_min) >= 0,
		      "min_vruntime went back by %lld ns at t=%llu ns",
		      (long long)-vruntime_delta(min, s->last_min), (unsigned long long)s->now);
	if (min < s->last_min) {
		s->min_wraps++;
		s->wrap_time = s->now;
	}
	s->last_min = min;
}

/* cfs_pick_next + cfs_set_next, checking the pick is the smallest vruntime. */
static void sim_pick(struct sim *s)
{
	struct sched_entity *se = cfs_pick_next(&s->cfs, false);

	if (!se) {
		KT_ASSERT_EQ(s->cfs.nr_running, 0);
		KT_ASSERT(s->cfs.curr == NULL);
		return;
	}
	for (size_t i = 0; i < s->n; i++) {
		const struct sched_entity *e = s->all[i];

		if (e->on_rq)
			KT_ASSERT_MSG(vruntime_delta(se->vruntime, e->vruntime) <= 0,
				      "picked vruntime %llu but entity %zu has %llu",
				      (unsigned long long)se->vruntime, i,
				      (unsigned long long)e->vruntime);
	}
	cfs_set_next(&s->cfs, se, s->now);
	KT_ASSERT(s->cfs.curr == se);
	KT_ASSERT(cfs_pick_first(&s->cfs) != se);
	s->switches++;
}

/* __schedule() with a runnable prev. */
static void sim_schedule(struct sim *s)
{
	if (s->cfs.curr)
		cfs_update_curr(&s->cfs, s->now);
	sim_pick(s);
	if (kt_failed_now)
		return;
	sim_check(s);
}

/* __schedule() with prev going to sleep. */
static void sim_sleep(struct sim *s)
{
	struct sched_entity *prev = s->cfs.curr;

	KT_ASSERT(prev);
	cfs_update_curr(&s->cfs, s->now);
	cfs_dequeue(&s->cfs, prev, DEQ_SLEEP);
	KT_ASSERT(!prev->on_rq);
	sim_pick(s);
	if (kt_failed_now)
		return;
	sim_check(s);
}

/* sched_tick() and, if it asked for it, the reschedule on IRQ exit. */
static void sim_tick_by(struct sim *s, uint64_t step)
{
	s->now += step;
	if (!s->cfs.curr)
		return;
	cfs_update_curr(&s->cfs, s->now);
	sim_check(s);
	if (kt_failed_now)
		return;
	if (s->cfs.nr_running > 1 && cfs_tick_should_preempt(&s->cfs))
		sim_schedule(s);
}

static void sim_run(struct sim *s, uint64_t duration)
{
	for (uint64_t t = 0; t < duration && !kt_failed_now; t += TICK)
		sim_tick_by(s, TICK);
}

/* activate(): update_curr, enqueue, preempt curr if the wakee deserves it. */
static void sim_activate(struct sim *s, struct sched_entity *se, int flags)
{
	cfs_update_curr(&s->cfs, s->now);
	cfs_enqueue(&s->cfs, se, flags);
	KT_ASSERT(se->on_rq);
	sim_check(s);
	if (kt_failed_now)
		return;
	if (!s->cfs.curr || cfs_wakeup_should_preempt(&s->cfs, se))
		sim_schedule(s);
}

static void sim_spawn(struct sim *s, struct sched_entity *se, int nice)
{
	se_init(se, nice);
	KT_ASSERT(s->n < MAXE);
	s->all[s->n++] = se;
	sim_activate(s, se, ENQ_NEW);
}

static void sim_forget(struct sim *s, const struct sched_entity *se)
{
	for (size_t i = 0; i < s->n; i++) {
		if (s->all[i] == se) {
			s->all[i] = s->all[--s->n];
			return;
		}
	}
}

/* wake_up() on the same CPU. */
static void sim_wake(struct sim *s, struct sched_entity *se)
{
	KT_ASSERT(!se->on_rq);
	se->vruntime -= cfs_min_vruntime(&s->cfs);
	sim_activate(s, se, ENQ_WAKEUP | ENQ_MIGRATED);
}

/* Run ticks until @se is curr (it must get there within @limit ticks). */
static void sim_run_until_curr(struct sim *s, const struct sched_entity *se, int limit)
{
	for (int i = 0; i < limit && s->cfs.curr != se && !kt_failed_now; i++)
		sim_tick_by(s, TICK);
	KT_ASSERT_MSG(s->cfs.curr == se, "entity never became curr within %d ticks", limit);
}

static bool within(double got, double want, double rel)
{
	return fabs(got - want) <= rel * fabs(want);
}

/*
 * Each entity's runtime gained since @base against its weight share of
 * @duration (all entities runnable throughout), and every ratio to the
 * first entity against the weight ratio, both within @rel.
 */
static void check_shares(struct sched_entity *const *e, const uint64_t *base, size_t n,
			 uint64_t duration, double rel)
{
	uint64_t total = 0, wsum = 0;

	for (size_t i = 0; i < n; i++) {
		total += e[i]->sum_exec_runtime - (base ? base[i] : 0);
		wsum += e[i]->weight;
	}
	KT_ASSERT_MSG(total == duration, "entities ran %llu ns of %llu",
		      (unsigned long long)total, (unsigned long long)duration);
	for (size_t i = 0; i < n; i++) {
		double got = (double)(e[i]->sum_exec_runtime - (base ? base[i] : 0));
		double want = (double)duration * e[i]->weight / (double)wsum;
		double got0 = (double)(e[0]->sum_exec_runtime - (base ? base[0] : 0));

		KT_ASSERT_MSG(within(got, want, rel),
			      "entity %zu (nice %d, weight %u): ran %.3f ms, share %.3f ms (%+.3f%%)",
			      i, e[i]->nice, e[i]->weight, got / 1e6, want / 1e6,
			      100.0 * (got - want) / want);
		KT_ASSERT_MSG(within(got / got0, (double)e[i]->weight / e[0]->weight, rel),
			      "entity %zu vs 0: runtime ratio %.5f, weight ratio %u:%u = %.5f", i,
			      got / got0, e[i]->weight, e[0]->weight,
			      (double)e[i]->weight / e[0]->weight);
	}
}

/* Run @fn in a child: it must panic (KASSERT -> abort). */
static bool panics(void (*fn)(void))
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		FILE *null = freopen("/dev/null", "w", stderr);

		(void)null;
		fn();
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return false;
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
}

/* ---------------------------------------------------------------- weights */

static void weight_too_low(void)
{
	(void)nice_to_weight(NICE_MIN - 1);
}

static void weight_too_high(void)
{
	(void)nice_to_weight(NICE_MAX + 1);
}

KT_CASE(nice_to_weight_table)
{
	KT_ASSERT_EQ(NICE_MIN, -20);
	KT_ASSERT_EQ(NICE_MAX, 19);
	KT_ASSERT_EQ(nice_to_weight(0), 1024);
	KT_ASSERT_EQ(nice_to_weight(0), NICE_0_WEIGHT);
	KT_ASSERT_EQ(nice_to_weight(NICE_MIN), 88761);
	KT_ASSERT_EQ(nice_to_weight(NICE_MAX), 15);
	KT_ASSERT_EQ(nice_to_weight(5), 335);
	KT_ASSERT_EQ(nice_to_weight(-5), 3121);
	for (int nice = NICE_MIN; nice < NICE_MAX; nice++) {
		double ratio = (double)nice_to_weight(nice) / nice_to_weight(nice + 1);

		KT_ASSERT_MSG(ratio >= 1.15 && ratio <= 1.35, "weight(%d)/weight(%d) = %.4f", nice,
			      nice + 1, ratio);
	}
	/* ... and overall it is 1024 / 1.25^nice within 5%. */
	for (int nice = NICE_MIN; nice <= NICE_MAX; nice++) {
		double ideal = 1024.0 / pow(1.25, nice);

		KT_ASSERT_MSG(within(nice_to_weight(nice), ideal, 0.05), "weight(%d) = %u, 1.25^ rule %.1f",
			      nice, nice_to_weight(nice), ideal);
	}
	/* Out of range is a broken caller: KASSERT. */
	KT_ASSERT(panics(weight_too_low));
	KT_ASSERT(panics(weight_too_high));
}

KT_CASE(se_init_and_rq_init)
{
	struct cfs_rq cfs;
	struct sched_entity se;

	memset(&cfs, 0xa5, sizeof(cfs));
	cfs_rq_init(&cfs);
	KT_ASSERT(cfs.curr == NULL);
	KT_ASSERT(cfs.timeline.root == NULL && cfs.timeline.leftmost == NULL);
	KT_ASSERT_EQ(cfs.nr_running, 0);
	KT_ASSERT_EQ(cfs.load_weight, 0);
	/* Deliberately just below the wrap, so every run crosses it early. */
	KT_ASSERT(vruntime_delta(0, cfs_min_vruntime(&cfs)) > 0);
	KT_ASSERT((uint64_t)(0 - cfs_min_vruntime(&cfs)) <= SEC);
	KT_ASSERT(cfs_check(&cfs));
	KT_ASSERT(cfs_pick_first(&cfs) == NULL);
	KT_ASSERT(!cfs_tick_should_preempt(&cfs));

	memset(&se, 0xa5, sizeof(se));
	se_init(&se, 7);
	KT_ASSERT_EQ(se.nice, 7);
	KT_ASSERT_EQ(se.weight, nice_to_weight(7));
	KT_ASSERT(!se.on_rq);
	KT_ASSERT_EQ(se.sum_exec_runtime, 0);
}

/* ---------------------------------------------------------------- order */

KT_CASE(picks_in_vruntime_order)
{
	static struct sched_entity e[64];
	static struct sim s;
	uint64_t seed = 12345;
	uint64_t prev_v = 0;

	sim_init(&s);
	/* Queue 64 entities at scattered vruntimes (some equal) around min. */
	for (size_t i = 0; i < 64; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		se_init(&e[i], 0);
		s.all[s.n++] = &e[i];
		e[i].vruntime = (seed >> 40) % 20 * MS;	/* relative, 0..19 ms */
		cfs_enqueue(&s.cfs, &e[i], ENQ_MIGRATED);
		sim_check(&s);
		if (kt_failed_now)
			return;
	}
	KT_ASSERT_EQ(s.cfs.nr_running, 64);
	KT_ASSERT_EQ(s.cfs.load_weight, 64 * 1024);
	/* cfs_next walks in non-decreasing vruntime; equal ones FIFO. */
	{
		size_t count = 0;
		const struct sched_entity *p = NULL;

		for (const struct sched_entity *se = cfs_pick_first(&s.cfs); se; se = cfs_next(se)) {
			if (p) {
				KT_ASSERT(vruntime_delta(se->vruntime, p->vruntime) >= 0);
				if (se->vruntime == p->vruntime)
					KT_ASSERT(se > p);	/* e[] index = enqueue order */
			}
			p = se;
			count++;
		}
		KT_ASSERT_EQ(count, 64);
	}
	/* Each one runs once and sleeps: they come out in exactly that order. */
	for (size_t i = 0; i < 64; i++) {
		struct sched_entity *first = cfs_pick_first(&s.cfs);

		sim_pick(&s);
		if (kt_failed_now)
			return;
		KT_ASSERT(s.cfs.curr == first);
		if (i)
			KT_ASSERT(vruntime_delta(first->vruntime, prev_v) >= 0);
		prev_v = first->vruntime;
		s.now += 100 * US;
		cfs_update_curr(&s.cfs, s.now);
		cfs_dequeue(&s.cfs, first, DEQ_SLEEP);
		sim_check(&s);
		if (kt_failed_now)
			return;
	}
	KT_ASSERT_EQ(s.cfs.nr_running, 0);
	KT_ASSERT_EQ(s.cfs.load_weight, 0);
	KT_ASSERT(cfs_pick_first(&s.cfs) == NULL);

	/* Under load, with everything checked at every step. */
	sim_init(&s);
	for (size_t i = 0; i < 8; i++) {
		sim_spawn(&s, &e[i], (int)i - 3);
		if (kt_failed_now)
			return;
	}
	sim_run(&s, 2 * SEC);
	KT_ASSERT(s.switches > 100);
}

/* ---------------------------------------------------------------- shares */

KT_CASE(equal_nice_equal_shares)
{
	static struct sched_entity e[16];
	static struct sim s;

	for (size_t n = 2; n <= 16; n++) {
		sim_init(&s);
		for (size_t i = 0; i < n; i++)
			sim_spawn(&s, &e[i], 0);
		sim_run(&s, 10 * SEC);
		if (kt_failed_now)
			return;
		struct sched_entity *v[16];

		for (size_t i = 0; i < n; i++)
			v[i] = &e[i];
		check_shares(v, NULL, n, 10 * SEC, 0.01);
		if (kt_failed_now) {
			printf("  (n = %zu)\n", n);
			return;
		}
	}
}

static void nice_run(const int *nices, size_t n, uint64_t duration)
{
	static struct sched_entity e[8];
	static struct sim s;
	struct sched_entity *v[8];

	sim_init(&s);
	for (size_t i = 0; i < n; i++) {
		sim_spawn(&s, &e[i], nices[i]);
		v[i] = &e[i];
	}
	sim_run(&s, duration);
	if (kt_failed_now)
		return;
	check_shares(v, NULL, n, duration, 0.01);
}

KT_CASE(nice_levels_share_by_weight)
{
	static const int n0_5[] = { 0, 5 }, m5_0[] = { -5, 0 }, n0_19[] = { 0, 19 };
	static const int mix[] = { -10, -3, 0, 4, 12 }, ends[] = { -20, 0 };

	nice_run(n0_5, 2, 20 * SEC);
	if (kt_failed_now)
		return;
	/* Spelled out for the pair the brief names: 1024:335. */
	KT_ASSERT_EQ(nice_to_weight(0), 1024);
	KT_ASSERT_EQ(nice_to_weight(5), 335);
	nice_run(m5_0, 2, 20 * SEC);
	if (kt_failed_now)
		return;
	nice_run(n0_19, 2, 60 * SEC);
	if (kt_failed_now)
		return;
	nice_run(mix, 5, 60 * SEC);
	if (kt_failed_now)
		return;
	nice_run(ends, 2, 60 * SEC);
}

/* ---------------------------------------------------------------- wrap */

KT_CASE(min_vruntime_monotonic_across_wrap)
{
	static struct sched_entity e[4];
	static struct sim s;
	struct sched_entity *v[4] = { &e[0], &e[1], &e[2], &e[3] };
	static const int nices[4] = { 0, 0, -3, 7 };
	uint64_t start;

	/* From cfs_rq_init's own starting point. */
	sim_init(&s);
	start = cfs_min_vruntime(&s.cfs);
	KT_ASSERT(start > UINT64_MAX - SEC);
	for (size_t i = 0; i < 3; i++)
		sim_spawn(&s, &e[i], 0);
	sim_run(&s, 10 * SEC);
	if (kt_failed_now)
		return;
	KT_ASSERT_EQ(s.min_wraps, 1);
	KT_ASSERT(cfs_min_vruntime(&s.cfs) < start);		/* raw value wrapped ... */
	KT_ASSERT(vruntime_delta(cfs_min_vruntime(&s.cfs), start) > (int64_t)(3 * SEC));	/* ... forward */
	check_shares(v, NULL, 3, 10 * SEC, 0.01);
	if (kt_failed_now)
		return;

	/*
	 * From 2 s of vruntime before the wrap: min_vruntime advances at
	 * NICE_0_WEIGHT / sum(weights) per ns, so it wraps ~8.2 s in.
	 */
	sim_init(&s);
	sim_set_min(&s, (uint64_t)0 - 2 * SEC);
	uint64_t wsum = 0;

	for (size_t i = 0; i < 4; i++) {
		sim_spawn(&s, &e[i], nices[i]);
		wsum += e[i].weight;
	}
	sim_run(&s, 20 * SEC);
	if (kt_failed_now)
		return;
	KT_ASSERT_EQ(s.min_wraps, 1);
	{
		double want = 2.0 * SEC * (double)wsum / NICE_0_WEIGHT;

		KT_ASSERT_MSG(within((double)s.wrap_time, want, 0.01),
			      "wrapped at %.3f s, expected %.3f s", s.wrap_time / 1e9, want / 1e9);
	}
	check_shares(v, NULL, 4, 20 * SEC, 0.01);
	if (kt_failed_now)
		return;
	/* All vruntimes stay within a few ms of min_vruntime across the wrap. */
	for (size_t i = 0; i < 4; i++) {
		int64_t lag = vruntime_delta(e[i].vruntime, cfs_min_vruntime(&s.cfs));

		KT_ASSERT_MSG(lag >= 0 && lag <= (int64_t)(20 * MS), "entity %zu lag %lld ns", i,
			      (long long)lag);
	}
}

/* ---------------------------------------------------------------- sleepers */

KT_CASE(sleeper_credit_is_bounded)
{
	static struct sched_entity e[3];
	static struct sim s;
	struct sched_entity *c = &e[2];
	uint64_t min_before, base;

	sim_init(&s);
	for (size_t i = 0; i < 3; i++)
		sim_spawn(&s, &e[i], 0);
	sim_run(&s, SEC);
	sim_run_until_curr(&s, c, 10);
	if (kt_failed_now)
		return;
	sim_sleep(&s);
	if (kt_failed_now)
		return;
	KT_ASSERT_EQ(s.cfs.nr_running, 2);
	sim_run(&s, 2 * SEC);	/* ~1 s of vruntime for the other two */
	if (kt_failed_now)
		return;
	KT_ASSERT(vruntime_delta(cfs_min_vruntime(&s.cfs), c->vruntime) > (int64_t)(900 * MS));

	/* Long sleeper: exactly half a latency of credit, and it preempts. */
	min_before = cfs_min_vruntime(&s.cfs);
	base = c->sum_exec_runtime;
	sim_wake(&s, c);
	if (kt_failed_now)
		return;
	KT_ASSERT_EQ(cfs_min_vruntime(&s.cfs), min_before);
	KT_ASSERT_EQ(vruntime_delta(c->vruntime, cfs_min_vruntime(&s.cfs)),
		     -(int64_t)(SCHED_LATENCY_NS / 2));
	KT_ASSERT(s.cfs.curr == c);
	/* Over the next 3 s it gets its third plus at most the credit. */
	sim_run(&s, 3 * SEC);
	if (kt_failed_now)
		return;
	{
		int64_t extra = (int64_t)(c->sum_exec_runtime - base) - (int64_t)SEC;

		KT_ASSERT_MSG(extra >= -(int64_t)(3 * MS) &&
				      extra <= (int64_t)(SCHED_LATENCY_NS / 2 + 3 * MS),
			      "woken sleeper ran %lld ns more than its third", (long long)extra);
	}

	/* Short sleeper: one tick asleep, keeps its own vruntime. */
	sim_run_until_curr(&s, c, 10);
	if (kt_failed_now)
		return;
	sim_sleep(&s);
	if (kt_failed_now)
		return;
	uint64_t own = c->vruntime;

	sim_tick_by(&s, TICK);
	if (kt_failed_now)
		return;
	KT_ASSERT(vruntime_delta(own, cfs_min_vruntime(&s.cfs)) >= -(int64_t)(SCHED_LATENCY_NS / 2));
	sim_wake(&s, c);
	if (kt_failed_now)
		return;
	KT_ASSERT_EQ(c->vruntime, own);
}

/* Exact placement at and around the credit bound, on a bare run queue. */
KT_CASE(sleeper_credit_boundary)
{
	static const struct {
		int64_t rel;	/* vruntime - min_vruntime when it went to sleep */
		int64_t want;	/* after waking */
	} cases[] = {
		{ 5 * MS, 5 * MS },
		{ 0, 0 },
		{ -(int64_t)(SCHED_LATENCY_NS / 2) + 1, -(int64_t)(SCHED_LATENCY_NS / 2) + 1 },
		{ -(int64_t)(SCHED_LATENCY_NS / 2), -(int64_t)(SCHED_LATENCY_NS / 2) },
		{ -(int64_t)(SCHED_LATENCY_NS / 2) - 1, -(int64_t)(SCHED_LATENCY_NS / 2) },
		{ -10 * (int64_t)SEC, -(int64_t)(SCHED_LATENCY_NS / 2) },
		{ INT64_MIN / 2, -(int64_t)(SCHED_LATENCY_NS / 2) },
	};
	struct cfs_rq cfs;
	struct sched_entity a, c;

	for (int idle = 0; idle < 2; idle++) {
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			uint64_t min;

			cfs_rq_init(&cfs);
			if (!idle) {
				se_init(&a, 0);
				cfs_enqueue(&cfs, &a, ENQ_MIGRATED);	/* at min_vruntime */
				cfs_set_next(&cfs, &a, 0);
			}
			min = cfs_min_vruntime(&cfs);
			se_init(&c, 0);
			c.vruntime = (uint64_t)cases[i].rel;
			cfs_enqueue(&cfs, &c, ENQ_WAKEUP | ENQ_MIGRATED);
			KT_ASSERT_MSG(vruntime_delta(c.vruntime, min) == cases[i].want,
				      "%s, slept at %lld: woke at %lld, expected %lld",
				      idle ? "idle" : "busy", (long long)cases[i].rel,
				      (long long)vruntime_delta(c.vruntime, min),
				      (long long)cases[i].want);
			KT_ASSERT(vruntime_delta(c.vruntime, cfs_min_vruntime(&cfs)) >=
				  -(int64_t)(SCHED_LATENCY_NS / 2));
			KT_ASSERT(cfs_check(&cfs));
		}
	}
}

KT_CASE(new_entity_starts_after_min_vruntime)
{
	static struct sched_entity e[5];
	static struct sim s;
	struct sched_entity *v[5] = { &e[0], &e[1], &e[2], &e[3], &e[4] };
	uint64_t base[5];

	sim_init(&s);
	for (size_t i = 0; i < 3; i++)
		sim_spawn(&s, &e[i], 0);
	sim_run(&s, SEC);
	if (kt_failed_now)
		return;
	for (size_t k = 3; k < 5; k++) {
		const int nice = k == 3 ? 0 : 5;
		uint64_t min = cfs_min_vruntime(&s.cfs), slice, want;

		se_init(&e[k], nice);
		slice = cfs_slice(&s.cfs, &e[k]);
		/* The queue's load including the newcomer. */
		KT_ASSERT_EQ(slice, SCHED_LATENCY_NS * e[k].weight / (s.cfs.load_weight + e[k].weight));
		want = min + slice * NICE_0_WEIGHT / e[k].weight;
		s.all[s.n++] = &e[k];
		sim_activate(&s, &e[k], ENQ_NEW);
		if (kt_failed_now)
			return;
		KT_ASSERT_EQ(e[k].vruntime, want);
		KT_ASSERT(vruntime_delta(e[k].vruntime, min) > 0);
		KT_ASSERT(vruntime_delta(e[k].vruntime, cfs_min_vruntime(&s.cfs)) >= 0);
		/* Whoever holds min_vruntime (curr or a waiter) still goes first. */
		KT_ASSERT(s.cfs.curr);
		KT_ASSERT(vruntime_delta(e[k].vruntime, s.cfs.curr->vruntime) > 0 ||
			  s.cfs.curr == &e[k]);
		sim_run(&s, 10 * TICK);
		if (kt_failed_now)
			return;
	}
	/* Then it simply gets its share. */
	for (size_t i = 0; i < 5; i++)
		base[i] = e[i].sum_exec_runtime;
	sim_run(&s, 10 * SEC);
	if (kt_failed_now)
		return;
	check_shares(v, base, 5, 10 * SEC, 0.01);
}

/* ---------------------------------------------------------------- preemption */

KT_CASE(wakeup_preemption_granularity)
{
	static const int nices[] = { 0, 5, -5, 19 };
	struct cfs_rq cfs;
	struct sched_entity a, b;

	for (size_t k = 0; k < sizeof(nices) / sizeof(nices[0]); k++) {
		const uint64_t gran = SCHED_WAKEUP_GRAN_NS * NICE_0_WEIGHT / nice_to_weight(nices[k]);
		const int64_t leads[] = { -5 * (int64_t)MS, 0, 1, (int64_t)gran - 1, (int64_t)gran,
					  (int64_t)gran + 1, (int64_t)gran + (int64_t)MS,
					  50 * (int64_t)MS };

		cfs_rq_init(&cfs);
		se_init(&a, 0);
		cfs_enqueue(&cfs, &a, ENQ_MIGRATED);
		se_init(&b, nices[k]);
		/* No curr: nothing to preempt. */
		KT_ASSERT(!cfs_wakeup_should_preempt(&cfs, &a));
		cfs_set_next(&cfs, &a, 0);
		KT_ASSERT(!cfs_wakeup_should_preempt(&cfs, &a));	/* curr itself */
		for (size_t i = 0; i < sizeof(leads) / sizeof(leads[0]); i++) {
			uint64_t min = cfs_min_vruntime(&cfs);

			b.vruntime = (uint64_t)-leads[i];	/* relative to min */
			cfs_enqueue(&cfs, &b, ENQ_MIGRATED);
			KT_ASSERT(cfs_check(&cfs));
			KT_ASSERT_EQ(vruntime_delta(a.vruntime, b.vruntime), leads[i]);
			KT_ASSERT_MSG(cfs_wakeup_should_preempt(&cfs, &b) == (leads[i] > (int64_t)gran),
				      "nice %d wakee %lld ns behind curr (gran %llu): preempt=%d",
				      nices[k], (long long)leads[i], (unsigned long long)gran,
				      cfs_wakeup_should_preempt(&cfs, &b));
			cfs_dequeue(&cfs, &b, DEQ_MIGRATE);
			KT_ASSERT_EQ(cfs_min_vruntime(&cfs), min);
		}
	}
	/* Concretely: nice 0 needs > 1 ms, nice 5 > 3.06 ms. */
	KT_ASSERT_EQ(SCHED_WAKEUP_GRAN_NS * NICE_0_WEIGHT / nice_to_weight(5), 3056716);
}

/* Step @s by @step until tick preemption asks; returns curr's run then. */
static uint64_t ran_until_preempt(struct sim *s, uint64_t step, uint64_t limit)
{
	const struct sched_entity *curr = s->cfs.curr;

	for (uint64_t t = 0; t < limit; t += step) {
		s->now += step;
		cfs_update_curr(&s->cfs, s->now);
		if (cfs_tick_should_preempt(&s->cfs))
			return curr->sum_exec_runtime - curr->prev_sum_exec_runtime;
	}
	return UINT64_MAX;
}

KT_CASE(tick_preemption_after_slice)
{
	static struct sched_entity e[2];
	static struct sim s;
	const struct sched_entity *last;
	uint64_t stretch_start = 0;
	unsigned int stretches = 0;

	/* Two equal CPU hogs: every stretch is exactly the 3 ms slice. */
	sim_init(&s);
	sim_spawn(&s, &e[0], 0);
	sim_spawn(&s, &e[1], 0);
	KT_ASSERT_EQ(cfs_slice(&s.cfs, &e[0]), SCHED_LATENCY_NS / 2);
	KT_ASSERT_EQ(cfs_slice(&s.cfs, &e[1]), 3 * MS);
	last = s.cfs.curr;
	for (int t = 0; t < 1000; t++) {
		sim_tick_by(&s, TICK);
		if (kt_failed_now)
			return;
		if (s.cfs.curr != last) {
			KT_ASSERT_MSG(s.now - stretch_start == 3 * MS, "stretch %u ran %llu ns",
				      stretches, (unsigned long long)(s.now - stretch_start));
			stretch_start = s.now;
			last = s.cfs.curr;
			stretches++;
		}
	}
	KT_ASSERT_EQ(stretches, 333);

	/* Same vruntime, fine clock: preempted at exactly the slice. */
	sim_init(&s);
	for (int i = 0; i < 2; i++) {
		se_init(&e[i], 0);
		cfs_enqueue(&s.cfs, &e[i], ENQ_MIGRATED);
	}
	sim_schedule(&s);
	KT_ASSERT(s.cfs.curr == &e[0]);
	KT_ASSERT_EQ(ran_until_preempt(&s, 10 * US, 20 * MS), 3 * MS);

	/* Waiter far behind: still not before the minimum granularity. */
	sim_init(&s);
	se_init(&e[0], 0);
	cfs_enqueue(&s.cfs, &e[0], ENQ_MIGRATED);
	sim_schedule(&s);
	se_init(&e[1], 0);
	e[1].vruntime = (uint64_t)-(int64_t)(50 * MS);
	cfs_enqueue(&s.cfs, &e[1], ENQ_MIGRATED);
	KT_ASSERT(cfs_check(&s.cfs));
	KT_ASSERT(!cfs_tick_should_preempt(&s.cfs));
	KT_ASSERT_EQ(ran_until_preempt(&s, 10 * US, 20 * MS), SCHED_MIN_GRAN_NS);

	/* Unequal weights: nice 0 runs its 1024/1359 of 6 ms ... */
	sim_init(&s);
	se_init(&e[0], 0);
	se_init(&e[1], 5);
	cfs_enqueue(&s.cfs, &e[0], ENQ_MIGRATED);
	cfs_enqueue(&s.cfs, &e[1], ENQ_MIGRATED);
	sim_schedule(&s);
	KT_ASSERT(s.cfs.curr == &e[0]);
	{
		uint64_t ideal = SCHED_LATENCY_NS * 1024 / (1024 + 335);

		KT_ASSERT_EQ(cfs_slice(&s.cfs, &e[0]), ideal);
		KT_ASSERT_EQ(ran_until_preempt(&s, US, 20 * MS), (ideal + US - 1) / US * US);
	}
	/*
	 * ... while nice 5 at the same start outruns the waiter's vruntime by
	 * more than its 1.48 ms slice after 0.48 ms, but runs the minimum
	 * granularity first.
	 */
	sim_init(&s);
	se_init(&e[0], 5);
	se_init(&e[1], 0);
	cfs_enqueue(&s.cfs, &e[0], ENQ_MIGRATED);
	cfs_enqueue(&s.cfs, &e[1], ENQ_MIGRATED);
	sim_schedule(&s);
	KT_ASSERT(s.cfs.curr == &e[0]);
	KT_ASSERT_EQ(cfs_slice(&s.cfs, &e[0]), SCHED_LATENCY_NS * 335 / 1359);
	KT_ASSERT_EQ(ran_until_preempt(&s, US, 20 * MS), SCHED_MIN_GRAN_NS);

	/* Alone on the queue: never preempted by the tick (sched_tick checks nr > 1). */
	sim_init(&s);
	sim_spawn(&s, &e[0], 0);
	sim_run(&s, SEC);
	KT_ASSERT_EQ(s.switches, 1);
	KT_ASSERT_EQ(e[0].sum_exec_runtime, SEC);
}

KT_CASE(slices_follow_period)
{
	static struct sched_entity e[20];
	struct cfs_rq cfs;
	struct sched_entity x;

	cfs_rq_init(&cfs);
	/* Alone, any weight: the whole latency. */
	se_init(&x, 19);
	KT_ASSERT_EQ(cfs_slice(&cfs, &x), SCHED_LATENCY_NS);
	se_init(&x, -20);
	KT_ASSERT_EQ(cfs_slice(&cfs, &x), SCHED_LATENCY_NS);

	/* nr equal entities: latency / nr up to nr_latency, then min_gran each. */
	for (unsigned int nr = 1; nr <= 20; nr++) {
		se_init(&e[nr - 1], 0);
		cfs_enqueue(&cfs, &e[nr - 1], ENQ_MIGRATED);
		KT_ASSERT_EQ(cfs.nr_running, nr);
		uint64_t want = nr <= SCHED_NR_LATENCY ? SCHED_LATENCY_NS / nr : SCHED_MIN_GRAN_NS;

		for (unsigned int i = 0; i < nr; i++)
			KT_ASSERT_MSG(cfs_slice(&cfs, &e[i]) == want, "nr %u: slice %llu, want %llu", nr,
				      (unsigned long long)cfs_slice(&cfs, &e[i]),
				      (unsigned long long)want);
	}
	KT_ASSERT_EQ(cfs_slice(&cfs, &e[0]), 750000);
	KT_ASSERT_EQ(SCHED_LATENCY_NS / 7, 857142);

	/* 12 mixed: period 12 * 0.75 = 9 ms split by weight. */
	cfs_rq_init(&cfs);
	{
		uint64_t wsum = 0, total = 0;

		for (int i = 0; i < 12; i++) {
			se_init(&e[i], -6 + 2 * i);
			cfs_enqueue(&cfs, &e[i], ENQ_MIGRATED);
			wsum += e[i].weight;
		}
		KT_ASSERT_EQ(cfs.load_weight, wsum);
		for (int i = 0; i < 12; i++) {
			uint64_t sl = cfs_slice(&cfs, &e[i]);

			KT_ASSERT_EQ(sl, 12 * SCHED_MIN_GRAN_NS * e[i].weight / wsum);
			total += sl;
		}
		KT_ASSERT(total <= 9 * MS && total > 9 * MS - 12);
	}

	/* A not-yet-queued entity counts itself: 8 queued + 1 = 9 > nr_latency. */
	cfs_rq_init(&cfs);
	for (int i = 0; i < 8; i++) {
		se_init(&e[i], 0);
		cfs_enqueue(&cfs, &e[i], ENQ_MIGRATED);
	}
	se_init(&x, -5);
	KT_ASSERT_EQ(cfs_slice(&cfs, &x), 9 * SCHED_MIN_GRAN_NS * 3121 / (8 * 1024 + 3121));
	KT_ASSERT_EQ(cfs_slice(&cfs, &x), 1862171);
	/* ... and 7 + 1 = 8 is still the plain latency. */
	cfs_dequeue(&cfs, &e[7], 0);
	KT_ASSERT_EQ(cfs_slice(&cfs, &x), SCHED_LATENCY_NS * 3121 / (7 * 1024 + 3121));
}

/* ---------------------------------------------------------------- migration */

/* Move waiting @x from @from to @to as a migration; check its lag is kept. */
static void migrate(struct sim *from, struct sim *to, struct sched_entity *x)
{
	uint64_t old = x->vruntime, min_from = cfs_min_vruntime(&from->cfs), min_to;
	int64_t lag;

	KT_ASSERT(x->on_rq && x != from->cfs.curr);
	cfs_dequeue(&from->cfs, x, DEQ_MIGRATE);
	sim_forget(from, x);
	sim_check(from);
	if (kt_failed_now)
		return;
	/*
	 * The scenarios move an entity that is not holding min_vruntime back,
	 * so its departure leaves min_vruntime where it was and "lag" has one
	 * meaning. (When it does hold min back, cfs_dequeue() makes vruntime
	 * relative to the min_vruntime recomputed without it, which is ahead
	 * of it; Linux normalises before that update. Not pinned down here.)
	 */
	KT_ASSERT_EQ(cfs_min_vruntime(&from->cfs), min_from);
	lag = vruntime_delta(old, min_from);
	KT_ASSERT(lag >= 0 && lag < (int64_t)(10 * MS));
	KT_ASSERT_EQ((int64_t)x->vruntime, lag);	/* relative in transit */

	cfs_update_curr(&to->cfs, to->now);
	min_to = cfs_min_vruntime(&to->cfs);
	to->all[to->n++] = x;
	cfs_enqueue(&to->cfs, x, ENQ_MIGRATED);
	sim_check(to);
	if (kt_failed_now)
		return;
	KT_ASSERT_EQ(x->vruntime, min_to + (uint64_t)lag);
	KT_ASSERT_EQ(vruntime_delta(x->vruntime, cfs_min_vruntime(&to->cfs)), lag);
}

KT_CASE(migration_keeps_lag)
{
	static struct sched_entity a[3], b[2];
	static struct sim sa, sb;
	struct sched_entity *x, *v[3];
	uint64_t base[3];

	sim_init(&sa);
	sim_init(&sb);
	sim_set_min(&sb, 1ull << 62);	/* a queue far away in vruntime */
	for (int i = 0; i < 3; i++)
		sim_spawn(&sa, &a[i], 0);
	for (int i = 0; i < 2; i++)
		sim_spawn(&sb, &b[i], 0);
	sim_run(&sa, SEC);
	sim_run(&sb, 5 * SEC);
	if (kt_failed_now)
		return;
	KT_ASSERT(vruntime_delta(cfs_min_vruntime(&sb.cfs), cfs_min_vruntime(&sa.cfs)) > (1ll << 61));

	/* The later of sa's two waiters (its departure leaves min alone) ... */
	x = cfs_next(cfs_pick_first(&sa.cfs));
	KT_ASSERT(x && sa.cfs.nr_running == 3);
	migrate(&sa, &sb, x);
	if (kt_failed_now)
		return;
	KT_ASSERT_EQ(sa.cfs.nr_running, 2);
	KT_ASSERT_EQ(sb.cfs.nr_running, 3);
	/* ... takes a third of sb from here on. */
	v[0] = &b[0];
	v[1] = &b[1];
	v[2] = x;
	for (int i = 0; i < 3; i++)
		base[i] = v[i]->sum_exec_runtime;
	sim_run(&sb, 6 * SEC);
	if (kt_failed_now)
		return;
	check_shares(v, base, 3, 6 * SEC, 0.01);
	if (kt_failed_now)
		return;

	/* sb's leftmost waiter back to sa (sb's min_vruntime stays put). */
	x = cfs_pick_first(&sb.cfs);
	migrate(&sb, &sa, x);
	if (kt_failed_now)
		return;
	KT_ASSERT_EQ(sa.cfs.nr_running, 3);
	sim_run(&sa, 100 * TICK);
	if (kt_failed_now)
		return;

	/* Sleep on sa, wake on sb (the wake_up() path to another CPU). */
	{
		struct sched_entity *c;
		uint64_t min_b;
		int64_t lag;

		sim_run_until_curr(&sa, x, 20);
		if (kt_failed_now)
			return;
		c = sa.cfs.curr;
		sim_sleep(&sa);
		if (kt_failed_now)
			return;
		sim_forget(&sa, c);
		lag = vruntime_delta(c->vruntime, cfs_min_vruntime(&sa.cfs));
		KT_ASSERT(lag >= -(int64_t)(SCHED_LATENCY_NS / 2) && lag <= (int64_t)(10 * MS));
		c->vruntime -= cfs_min_vruntime(&sa.cfs);
		cfs_update_curr(&sb.cfs, sb.now);
		min_b = cfs_min_vruntime(&sb.cfs);
		sb.all[sb.n++] = c;
		sim_activate(&sb, c, ENQ_WAKEUP | ENQ_MIGRATED);
		if (kt_failed_now)
			return;
		KT_ASSERT_EQ(vruntime_delta(c->vruntime, min_b), lag);
		KT_ASSERT_EQ(sb.cfs.nr_running, 3);
		KT_ASSERT_EQ(sa.cfs.nr_running, 2);
	}
}

/* ---------------------------------------------------------------- reweight */

KT_CASE(reweight_changes_share)
{
	static struct sched_entity e[2];
	static struct sim s;
	struct sched_entity *v[2] = { &e[0], &e[1] };
	uint64_t base[2];

	sim_init(&s);
	sim_spawn(&s, &e[0], 0);
	sim_spawn(&s, &e[1], 0);
	sim_run(&s, 5 * SEC);
	if (kt_failed_now)
		return;
	check_shares(v, NULL, 2, 5 * SEC, 0.01);
	if (kt_failed_now)
		return;

	/* Reweight the waiting one (queued, in the tree). */
	{
		struct sched_entity *w = cfs_pick_first(&s.cfs);

		KT_ASSERT(w && w != s.cfs.curr && w->on_rq);
		cfs_reweight(&s.cfs, w, 5);
		KT_ASSERT_EQ(w->weight, 335);
		KT_ASSERT_EQ(w->nice, 5);
		KT_ASSERT_EQ(s.cfs.load_weight, 1024 + 335);
		KT_ASSERT_EQ(s.cfs.nr_running, 2);
		KT_ASSERT(cfs_check(&s.cfs));
	}
	for (int i = 0; i < 2; i++)
		base[i] = e[i].sum_exec_runtime;
	sim_run(&s, 20 * SEC);
	if (kt_failed_now)
		return;
	check_shares(v, base, 2, 20 * SEC, 0.01);
	if (kt_failed_now)
		return;

	/* Reweight curr (charged first, as a caller must) to nice -5. */
	{
		struct sched_entity *c = s.cfs.curr, *o = c == &e[0] ? &e[1] : &e[0];

		cfs_update_curr(&s.cfs, s.now);
		cfs_reweight(&s.cfs, c, -5);
		KT_ASSERT_EQ(s.cfs.load_weight, 3121 + o->weight);
		KT_ASSERT(cfs_check(&s.cfs));
	}
	for (int i = 0; i < 2; i++)
		base[i] = e[i].sum_exec_runtime;
	sim_run(&s, 20 * SEC);
	if (kt_failed_now)
		return;
	check_shares(v, base, 2, 20 * SEC, 0.01);
	if (kt_failed_now)
		return;

	/* A sleeping entity: weight changes, the queue's load does not. */
	{
		struct sched_entity *c = s.cfs.curr;
		uint64_t load;

		sim_sleep(&s);
		if (kt_failed_now)
			return;
		load = s.cfs.load_weight;
		cfs_reweight(&s.cfs, c, 10);
		KT_ASSERT_EQ(c->weight, 110);
		KT_ASSERT_EQ(s.cfs.load_weight, load);
		KT_ASSERT(cfs_check(&s.cfs));
		sim_wake(&s, c);
		if (kt_failed_now)
			return;
		KT_ASSERT_EQ(s.cfs.load_weight, load + 110);
	}
}

/* ---------------------------------------------------------------- scale */

KT_CASE(many_entities)
{
	static struct sched_entity e[MAXE];
	static struct sim s;

	sim_init(&s);
	/* All at min_vruntime: FIFO among equals makes this a round robin. */
	for (size_t i = 0; i < MAXE; i++) {
		se_init(&e[i], 0);
		s.all[s.n++] = &e[i];
		cfs_enqueue(&s.cfs, &e[i], ENQ_MIGRATED);
	}
	KT_ASSERT(cfs_check(&s.cfs));
	KT_ASSERT_EQ(s.cfs.nr_running, MAXE);
	KT_ASSERT_EQ(s.cfs.load_weight, MAXE * 1024ull);
	KT_ASSERT(cfs_pick_first(&s.cfs) == &e[0]);
	KT_ASSERT_EQ(cfs_slice(&s.cfs, &e[0]), SCHED_MIN_GRAN_NS);
	sim_schedule(&s);
	if (kt_failed_now)
		return;
	KT_ASSERT(s.cfs.curr == &e[0]);
	for (int t = 0; t < 3 * MAXE; t++) {
		sim_tick_by(&s, TICK);
		if (kt_failed_now)
			return;
		KT_ASSERT(s.cfs.curr == &e[(t + 1) % MAXE]);
	}
	for (size_t i = 0; i < MAXE; i++)
		KT_ASSERT_MSG(e[i].sum_exec_runtime == 3 * MS, "entity %zu ran %llu ns", i,
			      (unsigned long long)e[i].sum_exec_runtime);
	/* Dequeue every other waiter, then enqueue them again as wakers. */
	for (size_t i = 1; i < MAXE; i += 2) {
		if (&e[i] == s.cfs.curr)
			continue;
		cfs_dequeue(&s.cfs, &e[i], DEQ_SLEEP);
		if (i % 64 == 1)
			sim_check(&s);
		if (kt_failed_now)
			return;
	}
	sim_check(&s);
	KT_ASSERT_EQ(s.cfs.nr_running, MAXE / 2);
	for (size_t i = 1; i < MAXE; i += 2) {
		if (e[i].on_rq)
			continue;
		sim_wake(&s, &e[i]);
		if (kt_failed_now)
			return;
	}
	KT_ASSERT_EQ(s.cfs.nr_running, MAXE);
	KT_ASSERT_EQ(s.cfs.load_weight, MAXE * 1024ull);
	sim_run(&s, 2 * SEC);
	if (kt_failed_now)
		return;
	/* Everyone has run 3 ms + about 2 s / 1024 since. */
	for (size_t i = 0; i < MAXE; i++)
		KT_ASSERT_MSG(e[i].sum_exec_runtime >= 3 * MS + 2 * SEC / MAXE - 2 * MS &&
				      e[i].sum_exec_runtime <= 3 * MS + 2 * SEC / MAXE + 2 * MS,
			      "entity %zu ran %llu ns", i, (unsigned long long)e[i].sum_exec_runtime);
}

/* ---------------------------------------------------------------- misuse */

static void enqueue_twice(void)
{
	static struct cfs_rq cfs;
	static struct sched_entity se;

	cfs_rq_init(&cfs);
	se_init(&se, 0);
	cfs_enqueue(&cfs, &se, ENQ_NEW);
	cfs_enqueue(&cfs, &se, ENQ_NEW);
}

static void dequeue_unqueued(void)
{
	static struct cfs_rq cfs;
	static struct sched_entity se;

	cfs_rq_init(&cfs);
	se_init(&se, 0);
	cfs_dequeue(&cfs, &se, 0);
}

KT_CASE(misuse_panics)
{
	KT_ASSERT(panics(enqueue_twice));
	KT_ASSERT(panics(dequeue_unqueued));
}
