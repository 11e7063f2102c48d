/*
 * `microbench`: what the scheduler's hot paths cost, measured in the guest
 * with arch_now_ns() deltas. Under QEMU -icount shift=0 one instruction is
 * one ns of virtual time, so every figure is an instruction count,
 * reproducible run to run. tools/bench runs it and writes bench/results.md.
 *
 *   microbench [FIG[,FIG...]|all] [tasks=N[,N...]] [reps=R] [cpu=C]
 *
 * FIG (each prints one RESULT line per task count, see docs/interfaces.md):
 *   ctxsw        yield to yield between tasks pinned to one CPU: window time
 *                / context switches counted by the run queue (median window)
 *   wake_local   a task sleeps on a timer of its own CPU; median_ns = timer
 *                expiry -> task running (idle exit, IRQ, wake-up, switch),
 *                cb_ns = timer callback (wake_up() called) -> task running;
 *                the split comes from other reps than median_ns (its
 *                timestamp in the callback is a clock read of its own)
 *   wake_busy    wake_local with the CPU busy (tasks=N: N-1 spinners, at
 *                least one), so no idle exit: timer interrupt -> the woken
 *                task preempts the spinner and runs
 *   wake_remote  the timer fires on CPU C, the task sleeps on CPU C2: the
 *                wake-up goes through the wake list and an IPI
 *   tick         sched_tick() called directly with IRQs masked: the scheduler
 *                work of a tick (the timer's own re-arm is in tick_irq)
 *   tick_irq     the whole tick interrupt as a spinning task sees it: gaps in
 *                its clock reads across exactly one tick, minus a loop trip
 *   select       wake_up() of a task sleeping on this CPU, pinned here, with
 *                IRQs masked: select_task_rq() (packing test included) plus
 *                the local enqueue; the pack test's outcome is printed
 *   pack         the placement policy's select() alone, on a light sleeping task, from a CPU
 *                whose buddy is another (idle) CPU when there is one
 *   pelt         pelt_update() for elapsed times of 100 us .. 10 s, ours
 *                (impl=o1) and the seeds' per-period loop (impl=seed_loop)
 *   idle         cpu_idle_enter() .. return, an IPI already pending so the
 *                WFI ends at once: state=WFI (next timer in 100 us) and the
 *                state the governor picks for an unbounded sleep
 *   mem          static sizes: struct task, stack, run queue (no timing)
 * tasks=N: N tasks on the measured CPU: N-1 background tasks pinned there
 * that loop on task_yield(), plus the measured one (ctxsw: N yielders, at
 * least 2; wake_remote: the background is on the sleeper's CPU).
 * Default: all FIGs, tasks=1, reps=101; cpu=1 (CPU0 has the console).
 * Nothing else should run meanwhile: under icount every vCPU advances the
 * one virtual clock, so other busy CPUs would be counted; the measurements
 * keep all other CPUs idle. Samples are taken with IRQs masked where that
 * isolates the cost (tick, select, pack, pelt, idle), and the cost of one
 * clock read is subtracted. Sleepers that are timed run at nice -20 (they
 * must keep the right to preempt 999 yielders; see WAKEE_NICE), and every
 * measured task is created before its background and at nice -20 (see
 * run_on() and bg_wait(): CFS places new tasks a slice behind).
 */
#include "kernel/apps/microbench.h"

#include "kernel/lib/panic.h"

/* ------------------------------------------------------------ the seeds' loop */

/* Seed 01/16: y ~= 4008 / 4096, applied once per period. */
static uint64_t seed_decay_load(uint64_t val, uint64_t n)
{
	for (; n && val; n--) {
		val *= 4008;
		val >>= 12;
	}
	return val;
}

int pelt_update_seed_loop(struct sched_avg *sa, uint64_t now, bool runnable, bool running)
{
	uint64_t delta;
	int64_t delta_w;
	int decayed = 0;

	if (now < sa->last_update_ns) {	/* the seed's "time went backwards" resync */
		sa->last_update_ns = now;
		return 0;
	}
	delta = now - sa->last_update_ns;
	delta >>= 10;
	if (!delta)
		return 0;
	sa->last_update_ns = now;

	delta_w = sa->runnable_avg_period % 1024;
	if (delta + (uint64_t)delta_w >= 1024) {
		decayed = 1;
		delta_w = 1024 - delta_w;
		KASSERT((uint64_t)delta_w <= delta);
		do {
			if (runnable)
				sa->runnable_avg_sum += (uint32_t)delta_w;
			if (running)
				sa->usage_avg_sum += (uint32_t)delta_w;
			sa->runnable_avg_period += (uint32_t)delta_w;

			sa->runnable_avg_sum = (uint32_t)seed_decay_load(sa->runnable_avg_sum, 1);
			sa->usage_avg_sum = (uint32_t)seed_decay_load(sa->usage_avg_sum, 1);
			sa->runnable_avg_period = (uint32_t)seed_decay_load(sa->runnable_avg_period, 1);

			delta -= (uint64_t)delta_w;
			delta_w = 1024;
		} while (delta >= 1024);
	}
	if (runnable)
		sa->runnable_avg_sum += (uint32_t)delta;
	if (running)
		sa->usage_avg_sum += (uint32_t)delta;
	sa->runnable_avg_period += (uint32_t)delta;
	return decayed;
}

#ifndef HOST_BUILD
/* ------------------------------------------------------------ the command (kernel only) */
#include <stdlib.h>
#include <string.h>

#include "arch/barrier.h"
#include "arch/cpu.h"
#include "arch/ipi.h"
#include "kernel/sched/energy.h"
#include "kernel/lib/format.h"
#include "kernel/sched/idle.h"
#include "kernel/lib/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/sched/sched_internal.h"
#include "kernel/console/shell.h"
#include "kernel/time/time.h"
#include "kernel/time/timer.h"
#include "kernel/sched/topology.h"

#ifndef BOARD_NAME
#define BOARD_NAME "host"
#endif

#define MB_MAX_REPS 1001
#define MB_MAX_BG 1000
#define MB_WARM 4			/* samples thrown away first */
#define MB_MAX_COUNTS 8
/*
 * Woken tasks (and the tick_irq spinner) run at nice -20: entitled to
 * preempt the yielders, so what is timed is the path, not the fair wait.
 */
#define WAKEE_NICE NICE_MIN
/*
 * Figures whose timed code does not depend on the caller's weight (pelt,
 * pack, idle) run at nice -20 too: at nice 0 among 999 yielders the task
 * would get 1/1000 of the CPU and need seconds of virtual time. The tick
 * and select figures charge the caller's vruntime in the timed code, so
 * they run at nice 0 like the background.
 */
#define BUSY_NICE NICE_MIN

/* One run at a time: everything below is the state of that run. */
static struct {
	int cpu, cpu2;			/* measured CPU; the remote CPU */
	unsigned reps;
	int tasks;			/* N of tasks=N */
	uint64_t ovh;			/* one arch_now_ns() call */
	unsigned n;			/* samples taken */
	/* wake-ups */
	struct task *volatile w;
	struct timer tm;
	volatile uint64_t t_irq, t_run;
	volatile bool stamp;		/* wake_cb() takes a timestamp (not in the timed reps) */
	volatile bool fired;		/* wake_cb() ran */
	unsigned n_split;		/* samples of the expiry -> callback -> run split */
	volatile unsigned done;
	volatile bool stop;
	volatile bool go_bg;		/* the measured task is ready for its background */
	int local_bg;			/* background tasks the measured task creates itself */
	int nice;			/* the measured task's nice once its background runs */
	int rt_prio;			/* >0: the measured tasks run SCHED_FIFO at this priority (*_fifo figures) */
	int policy, prio;		/* what the measured task ran at (RESULT's policy= prio=) */
	bool failed;
	char extra[256];		/* figure-specific fields */
} mb;

static uint64_t sa_[MB_MAX_REPS], sb_[MB_MAX_REPS], sc_[MB_MAX_REPS];

static struct {
	volatile bool stop;
	volatile bool spin;		/* spin instead of yielding (wake_busy: the CPU never idles) */
	volatile int want;		/* how many will be created */
	volatile int n;			/* created so far */
	struct task *t[MB_MAX_BG];
} bg;

static bool mb_busy;

struct stats {
	unsigned n;
	uint64_t min, med, p90, max;
	uint64_t mean;		/* finer than the median when the clock ticks in > 1 ns; 0: not from samples */
};

static void sort_u64(uint64_t *v, unsigned n)
{
	/* Shell sort: n <= MB_MAX_REPS. */
	for (unsigned gap = n / 2; gap > 0; gap /= 2)
		for (unsigned i = gap; i < n; i++) {
			uint64_t x = v[i];
			unsigned j = i;

			for (; j >= gap && v[j - gap] > x; j -= gap)
				v[j] = v[j - gap];
			v[j] = x;
		}
}

static struct stats stats_of(uint64_t *v, unsigned n)
{
	struct stats s = { 0, 0, 0, 0, 0, 0 };
	uint64_t sum = 0;

	if (n == 0)
		return s;
	for (unsigned i = 0; i < n; i++)
		sum += v[i];
	s.mean = sum / n;
	sort_u64(v, n);
	s.n = n;
	s.min = v[0];
	s.med = v[n / 2];
	s.p90 = v[(n * 9) / 10 < n ? (n * 9) / 10 : n - 1];
	s.max = v[n - 1];
	return s;
}

static uint64_t sub_sat(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/* Median cost of one arch_now_ns() (the difference of two back-to-back reads). */
static uint64_t clock_overhead(void)
{
	unsigned n = 63;

	for (unsigned i = 0; i < n; i++) {
		unsigned long flags = arch_irq_save();
		uint64_t t0 = arch_now_ns(), t1 = arch_now_ns();

		arch_irq_restore(flags);
		sc_[i] = t1 - t0;
	}
	return stats_of(sc_, n).med;
}

static void result(const char *fig, const struct stats *s, const char *extra,
		   const struct energy_snapshot *from)
{
	static char line[1024];
	struct energy_snapshot to;
	char mean[32] = "";
	int n;

	if (s->mean)
		ksnprintf(mean, sizeof(mean), " mean_ns=%llu", (unsigned long long)s->mean);
	energy_take_snapshot(&to);
	n = ksnprintf(line, sizeof(line),
		      "RESULT bench=microbench board=%s pack=%s fig=%s tasks=%d cpu=%d n=%u median_ns=%llu "
		      "min_ns=%llu p90_ns=%llu max_ns=%llu%s policy=%s prio=%d%s%s ",
		      BOARD_NAME, pack_policy_current()->name, fig, mb.tasks, mb.cpu, s->n,
		      (unsigned long long)s->med, (unsigned long long)s->min, (unsigned long long)s->p90,
		      (unsigned long long)s->max, mean,
		      mb.policy == SCHED_FIFO ? "fifo" : mb.policy == SCHED_RR ? "rr" : "other", mb.prio,
		      extra && *extra ? " " : "", extra ? extra : "");
	if (n < (int)sizeof(line))
		energy_result_fields(line + n, sizeof(line) - (size_t)n, from, &to);
	kprintf("%s\n", line);
}

/* ------------------------------------------------------------ helpers */

static struct task *spawn(const char *name, void (*fn)(void *), void *arg, int nice, uint32_t mask)
{
	struct task *t = task_create(name, fn, arg, nice, mask);

	if (!t) {
		kprintf("error: microbench: no task slot for %s\n", name);
		mb.failed = true;
	}
	return t;
}

/* SCHED_FIFO at mb.rt_prio (the *_fifo figures: cyclictest -p 80's priority). */
static void set_fifo(struct task *t)
{
	if (task_setscheduler(t, SCHED_FIFO, mb.rt_prio) != 0) {
		kprintf("error: microbench: cannot make %s SCHED_FIFO\n", t->name);
		mb.failed = true;
	}
}

/* The measured task's policy, read back once it is set (RESULT's policy= prio=). */
static void note_policy(void)
{
	mb.policy = current_task()->policy;
	mb.prio = current_task()->rt_priority;
}

static void bg_fn(void *arg)
{
	(void)arg;
	while (!READ_ONCE(bg.stop))
		if (!READ_ONCE(bg.spin))
			task_yield();
}

static void bg_reset(void)
{
	bg.stop = false;
	bg.n = 0;
	bg.want = 0;
}

/* @n background yielders pinned to @cpu (bg.want already says n). */
static bool bg_start(int cpu, int n)
{
	for (int i = 0; i < n && i < MB_MAX_BG; i++) {
		bg.t[i] = spawn("mb-bg", bg_fn, NULL, 0, 1u << cpu);
		if (!bg.t[i]) {
			WRITE_ONCE(bg.want, bg.n);	/* let the measured task go on */
			return false;
		}
		bg.n++;
	}
	return true;
}

static void bg_stop(void)
{
	WRITE_ONCE(bg.stop, true);
	for (int i = 0; i < bg.n; i++)
		task_join(bg.t[i]);
	bg.n = 0;
}

/*
 * The measured task calls this once its own set-up is done: the background
 * tasks are created then, and it sleeps until they are all queued, then a
 * little more. Not until they have all run once: a new task starts a slice
 * (0.75 ms with many tasks) of vruntime behind those already there, so the
 * last of 999 yielders created one after the other (each running ~1 us at
 * a time) would first run ~0.75 s later. Late ones wait in the tree, which
 * is what counts: the run queue holds them all. Sleeping, not yielding:
 * a task that yields through the creation builds up vruntime that 999
 * yielders then take seconds to catch up with; a sleeper comes back with
 * the sleeper's credit.
 */
static void bg_wait(void)
{
	WRITE_ONCE(mb.go_bg, true);
	while (READ_ONCE(bg.n) < READ_ONCE(bg.want))
		task_sleep_ns(20 * NSEC_PER_USEC);
	if (READ_ONCE(bg.want))
		task_sleep_ns(200 * NSEC_PER_USEC);
	/* Created at nice -20 (see run_on); from here on at the figure's nice or RT priority. */
	if (mb.rt_prio)
		set_fifo(current_task());
	else
		task_set_nice(current_task(), mb.nice);
	note_policy();
}

static bool asleep(const struct task *t)
{
	return t && READ_ONCE(t->state) == TASK_SLEEPING && !READ_ONCE(t->on_rq) &&
	       READ_ONCE(cpu_rq(t->cpu)->curr) != t;
}

/* A task that blocks until woken, and exits once woken with mb.stop set. */
static void blocker_fn(void *arg)
{
	(void)arg;
	mb.w = current_task();
	for (;;) {
		set_current_sleeping();
		sched_block();
		mb.t_run = arch_now_ns();
		mb.done++;
		if (READ_ONCE(mb.stop))
			break;
	}
}

/* blocker_fn() after a history of a light periodic task (1 ms period, ~0% duty): the small task packing is for. */
static void light_blocker_fn(void *arg)
{
	for (int i = 0; i < 64; i++)
		task_sleep_ns(NSEC_PER_MSEC);
	blocker_fn(arg);
}

static void blocker_stop(struct task *w)
{
	WRITE_ONCE(mb.stop, true);
	while (!asleep(w))
		task_sleep_ns(10 * NSEC_PER_USEC);
	wake_up(w);
	task_join(w);
}

static unsigned argmax(const uint64_t *a, const uint64_t *b, unsigned n)
{
	unsigned best = 0;

	for (unsigned i = 1; i < n; i++)
		if (b[i] - a[i] > b[best] - a[best])
			best = i;
	return best;
}

/* ------------------------------------------------------------ ctxsw */

/*
 * The yielders are created here, by the measured task on its own CPU with
 * IRQs on but at nice -20 for the while: each new task is placed a slice
 * ahead of min_vruntime, which is (about) ours; at nice -20 our vruntime
 * hardly moves while we create, so they all start within ~60 us of
 * vruntime of one another and the round robin soon includes all of them.
 * (Created one by one from another CPU, they spread over milliseconds and
 * only a few would take turns for a long while.)
 */
static void ctxsw_fn(void *arg)
{
	struct rq *rq = cpu_rq(mb.cpu);
	struct task *self = current_task();
	unsigned nbg = (unsigned)mb.local_bg, ntasks = nbg + 1, k = 4000 / ntasks, n = 0, round = 0;
	unsigned windows = mb.reps < 21 ? mb.reps : 21;
	uint64_t until;

	(void)arg;
	if (k < 4)
		k = 4;
	task_set_nice(self, NICE_MIN);
	bg.want = (int)nbg;
	for (unsigned i = 0; i < nbg; i++) {
		bg.t[i] = spawn("mb-bg", bg_fn, NULL, 0, 1u << mb.cpu);
		if (!bg.t[i])
			break;
		bg.n++;
	}
	task_set_nice(self, 0);
	if (mb.rt_prio) {
		/*
		 * Ourselves first: a partner made FIFO while we are still fair
		 * would preempt us and, alone at its priority, never yield back.
		 */
		set_fifo(self);
		for (int i = 0; i < bg.n; i++)
			set_fifo(bg.t[i]);
	}
	note_policy();
	WRITE_ONCE(mb.go_bg, true);
	/* Yield until one of our yields lets (nearly) every task run once. */
	until = arch_now_ns() + 500 * NSEC_PER_MSEC;
	while (arch_now_ns() < until) {
		uint64_t s0 = READ_ONCE(rq->nr_switches);

		task_yield();
		round = (unsigned)(READ_ONCE(rq->nr_switches) - s0);
		if (round * 10 >= ntasks * 9)
			break;
	}
	for (unsigned r = 0; r < windows + 10 && n < windows; r++) {
		uint64_t s0 = READ_ONCE(rq->nr_switches), t0 = arch_now_ns(), t1, sw;

		for (unsigned i = 0; i < k; i++)
			task_yield();
		t1 = arch_now_ns();
		sw = READ_ONCE(rq->nr_switches) - s0;
		if (sw < k)	/* we kept the CPU: not a round robin window */
			continue;
		sa_[n] = (t1 - t0) / sw;
		sb_[n] = sw;
		n++;
	}
	mb.n = n;
	/* FIFO partners alone on a CPU would keep it from the console until throttled: end them now. */
	if (mb.rt_prio)
		WRITE_ONCE(bg.stop, true);
	ksnprintf(mb.extra, sizeof(mb.extra), "yields_per_window=%u switches_per_window=%llu "
		  "switches_per_round=%u", k, (unsigned long long)stats_of(sb_, n).med, round);
}

/* ------------------------------------------------------------ wake-ups */

/*
 * The wake-up timer's callback. Its timestamp (for the expiry -> callback
 * -> run split) is a clock read the measured path does not have, so it is
 * taken only in the reps that measure the split, not in the timed ones.
 */
static void wake_cb(struct timer *t)
{
	(void)t;
	mb.fired = true;
	if (mb.stamp)
		mb.t_irq = arch_now_ns();
	wake_up(mb.w);
}

/*
 * The clock's step (16 ns for a 62.5 MHz counter, 10 ns for 100 MHz), or a
 * multiple of it: the smallest nonzero difference of back-to-back readings
 * (a multiple when a reading outlasts a step). Either way a deadline on it
 * falls on a step. Measured once.
 */
static uint64_t clock_step_ns(void)
{
	static uint64_t step;

	if (!step) {
		uint64_t best = UINT64_MAX, last = arch_now_ns();

		for (int n = 0; n < 64; n++) {
			uint64_t t = arch_now_ns();

			if (t != last && t - last < best)
				best = t - last;
			last = t;
		}
		step = best == UINT64_MAX ? 1 : best;
	}
	return step;
}

static uint64_t next_deadline(unsigned i)
{
	/*
	 * 20..29 us ahead, varied so the samples do not phase-lock with
	 * anything, plus 100 ns per task on the CPU: the sleeper then uses
	 * well under its share of the CPU and keeps the sleeper's claim to
	 * preempt (else, behind 999 others, it waits its fair turn: ~1.4 ms).
	 * Reps go in pairs, one timed and one stamping the split (i & 1): both
	 * of a pair get the same offset, so the two sets sample the same
	 * phases (with i % 8, timed reps saw only the even offsets, split reps
	 * only the odd ones, and a phase-dependent cost such as a PELT unit
	 * boundary could make the split's parts add up to less than the whole).
	 */
	uint64_t step = clock_step_ns(), d = arch_now_ns() + 20 * NSEC_PER_USEC + ((i / 2) % 8) * 1250 +
					  (uint64_t)mb.tasks * 100;

	/*
	 * On a step of the clock: the event fires at the deadline itself, not
	 * up to a step after it, so a sample is the path's cost and not also
	 * where the deadline fell between two steps (which moved the fastest
	 * sample by a step or two when unrelated code shifted the loop's timing).
	 */
	return (d + step - 1) / step * step;
}

/*
 * One wake-up for deadline @d, the woken task running at @ran: a timed
 * sample (sa_[*j]) or, when the callback took its timestamp, the split
 * callback -> run (sb_[*k]) and expiry -> callback (sc_[*k]).
 */
static void wake_sample(uint64_t d, uint64_t ran, unsigned *j, unsigned *k)
{
	if (!mb.stamp && *j < MB_MAX_REPS) {
		sa_[(*j)++] = ran - d;
	} else if (mb.stamp && *k < MB_MAX_REPS) {
		sb_[*k] = ran - mb.t_irq;
		sc_[(*k)++] = mb.t_irq - d;
	}
}

/* Even reps (after the warm-up) are timed; odd ones stamp the callback for the split. */
static void wake_local_fn(void *arg)
{
	unsigned j = 0, k = 0;

	(void)arg;
	mb.w = current_task();
	bg_wait();
	for (unsigned i = 0; i < 2 * mb.reps + MB_WARM; i++) {
		uint64_t d = next_deadline(i), now;
		unsigned long flags = arch_irq_save();

		timer_setup(&mb.tm, wake_cb, NULL);
		mb.fired = false;
		mb.stamp = i & 1;
		set_current_sleeping();
		timer_arm(&mb.tm, d);
		arch_irq_restore(flags);
		sched_block();
		now = arch_now_ns();
		if (!mb.fired) {	/* not our wake-up: should not happen */
			timer_cancel(&mb.tm);
			continue;
		}
		if (i >= MB_WARM)
			wake_sample(d, now, &j, &k);
	}
	mb.n = j;
	mb.n_split = k;
}

/* On mb.cpu: the timer's CPU. The sleeper (blocker_fn) is on mb.cpu2. Reps as wake_local_fn(). */
static void wake_remote_fn(void *arg)
{
	unsigned j = 0, k = 0;

	(void)arg;
	bg_wait();
	while (!asleep(mb.w))
		task_sleep_ns(10 * NSEC_PER_USEC);
	for (unsigned i = 0; i < 2 * mb.reps + MB_WARM; i++) {
		unsigned done0;
		uint64_t d;
		unsigned long flags;

		while (!asleep(mb.w))
			task_sleep_ns(5 * NSEC_PER_USEC);
		done0 = mb.done;
		mb.fired = false;
		mb.stamp = i & 1;
		d = next_deadline(i);
		flags = arch_irq_save();
		timer_setup(&mb.tm, wake_cb, NULL);
		timer_arm(&mb.tm, d);
		arch_irq_restore(flags);
		task_sleep_until(d + 20 * NSEC_PER_USEC);
		while (READ_ONCE(mb.done) == done0)
			task_sleep_ns(5 * NSEC_PER_USEC);
		if (i >= MB_WARM && mb.fired)
			wake_sample(d, mb.t_run, &j, &k);
	}
	mb.n = j;
	mb.n_split = k;
}

/* ------------------------------------------------------------ tick */

static void tick_direct_fn(void *arg)
{
	(void)arg;
	bg_wait();
	for (unsigned i = 0; i < mb.reps + MB_WARM; i++) {
		unsigned long flags = arch_irq_save();
		uint64_t t0 = arch_now_ns(), t1;

		sched_tick();
		t1 = arch_now_ns();
		arch_irq_restore(flags);
		if (i >= MB_WARM)
			sa_[i - MB_WARM] = sub_sat(t1 - t0, mb.ovh);
	}
	/* The tick timer itself did not move: re-arming it is tick_fn()'s (see tick_irq). */
	mb.n = mb.reps;
}

static void tick_irq_fn(void *arg)
{
	struct rq *rq = cpu_rq(mb.cpu);
	struct task *self = current_task();
	uint64_t prev, end, tk0, sw0, last_gap = 0, quiet_ns = 0, quiet_n = 0, min_gap = UINT64_MAX;
	unsigned n = 0;

	(void)arg;
	bg_wait();
	prev = arch_now_ns();
	end = prev + (uint64_t)(mb.reps + 10) * 4 * (NSEC_PER_SEC / sched_hz);
	tk0 = READ_ONCE(rq->ticks);
	sw0 = READ_ONCE(self->nr_switches);
	while (n < mb.reps + MB_WARM) {
		/* Counts first, then the clock: a tick the counts show is in this trip's gap... */
		uint64_t tk = READ_ONCE(rq->ticks), sw = READ_ONCE(self->nr_switches), t = arch_now_ns();
		uint64_t gap = t - prev;

		if (tk != tk0 || sw != sw0) {
			/*
			 * ... or, if it came between the last trip's count reads and
			 * its clock read, in the last trip's gap. Exactly one tick and
			 * no switch: the gap is the tick's.
			 */
			if (tk == tk0 + 1 && sw == sw0) {
				if (n >= MB_WARM)
					sa_[n - MB_WARM] = gap > last_gap ? gap : last_gap;
				n++;
			}
			tk0 = tk;
			sw0 = sw;
			gap = 0;	/* not a quiet trip, nor the next one's predecessor */
		} else {
			if (gap < min_gap)
				min_gap = gap;
			if (gap < 4 * min_gap + 20) {
				quiet_ns += gap;
				quiet_n++;
			}
		}
		last_gap = gap;
		prev = t;
		if (t > end)
			break;
	}
	mb.n = n > MB_WARM ? n - MB_WARM : 0;
	/* One loop trip without an interrupt (mean: the clock ticks in 10-16 ns steps). */
	mb.ovh = quiet_n ? quiet_ns / quiet_n : 0;
	for (unsigned i = 0; i < mb.n; i++)
		sa_[i] = sub_sat(sa_[i], mb.ovh);
	ksnprintf(mb.extra, sizeof(mb.extra), "loop_trip_ns=%llu", (unsigned long long)mb.ovh);
}

/* ------------------------------------------------------------ select / pack */

static void select_fn(void *arg)
{
	struct rq *rq = cpu_rq(mb.cpu);
	const struct pack_policy *policy = pack_policy_current();
	uint64_t st0[PACK_MAX_REASONS], st1[PACK_MAX_REASONS];
	struct task *w;
	unsigned why;

	(void)arg;
	mb.w = NULL;
	w = spawn("mb-wakee", blocker_fn, NULL, WAKEE_NICE, 1u << mb.cpu);
	if (!w) {
		bg_wait();
		return;
	}
	while (!asleep(w))
		task_yield();
	/* Let its average decay to a light task's (it starts one period busy). */
	task_sleep_ns(10 * NSEC_PER_MSEC);
	bg_wait();
	for (unsigned r = 0; r < PACK_MAX_REASONS; r++)
		st0[r] = rq->pack_stats[r];
	for (unsigned i = 0; i < mb.reps + MB_WARM; i++) {
		unsigned long flags;
		uint64_t t0, t1;

		while (!asleep(w))
			task_yield();
		flags = arch_irq_save();
		t0 = arch_now_ns();
		wake_up(w);
		t1 = arch_now_ns();
		arch_irq_restore(flags);
		if (i >= MB_WARM)
			sa_[i - MB_WARM] = sub_sat(t1 - t0, mb.ovh);
		task_yield();
	}
	for (unsigned r = 0; r < PACK_MAX_REASONS; r++)
		st1[r] = rq->pack_stats[r];
	mb.n = mb.reps;
	why = argmax(st0, st1, (unsigned)policy->nr_reasons);
	/* A wakee allowed on one CPU skips placement (no packing test, nothing counted). */
	ksnprintf(mb.extra, sizeof(mb.extra), "pack_test=%s buddy=%d",
		  st1[why] != st0[why] ? policy->reasons[why] : "none", sched_topo.pack_buddy[mb.cpu]);
	blocker_stop(w);
}

static void pack_fn(void *arg)
{
	int ncpu = sched_nr_cpus(), from = mb.cpu, buddy, target = -1, placed = -1;
	unsigned batch = 16, reps = mb.reps < 51 ? mb.reps : 51;
	const struct pack_policy *policy = pack_policy_current();
	int why = 0;
	static uint64_t sel[51];
	struct stats s;
	struct task *w;

	(void)arg;
	mb.w = NULL;
	w = spawn("mb-wakee", light_blocker_fn, NULL, 0, ncpu >= 32 ? ~0u : (1u << ncpu) - 1);
	if (!w) {
		bg_wait();
		return;
	}
	while (READ_ONCE(mb.w) != w || !asleep(w))
		task_sleep_ns(100 * NSEC_PER_USEC);
	task_sleep_ns(10 * NSEC_PER_MSEC);
	bg_wait();
	/* Prefer a CPU whose buddy is another CPU, idle: the full test, ending in "packed". */
	for (int c = 0; c < ncpu; c++) {
		int b = sched_topo.pack_buddy[c];

		if (b >= 0 && b < ncpu && b != c && b != mb.cpu && cpu_idle_now(b)) {
			from = c;
			break;
		}
	}
	buddy = sched_topo.pack_buddy[from];
	for (unsigned r = 0; r < reps; r++) {
		unsigned long flags;
		uint64_t t0, t1, t2;

		/*
		 * The cost depends on where the two averages it ages (the task's,
		 * an idle buddy's) stand in their PELT periods: spread the batches
		 * over ~1 ms, the same way whatever the background, so the samples
		 * cover those states instead of landing on one by chance.
		 */
		if (r)
			task_sleep_ns((uint64_t)(r % 8) * 130 * NSEC_PER_USEC);
		flags = arch_irq_save();
		t0 = arch_now_ns();
		for (unsigned b = 0; b < batch; b++)
			why = policy->select(w, from, &target);
		t1 = arch_now_ns();
		/* The whole placement decision the same wake-up makes (packing test included). */
		for (unsigned b = 0; b < batch; b++)
			placed = sched_select_task_rq(w, from, true);
		t2 = arch_now_ns();
		arch_irq_restore(flags);
		sa_[r] = sub_sat(t1 - t0, mb.ovh) / batch;
		sel[r] = sub_sat(t2 - t1, mb.ovh) / batch;
	}
	mb.n = reps;
	s = stats_of(sel, reps);
	ksnprintf(mb.extra, sizeof(mb.extra),
		  "from_cpu=%d buddy=%d outcome=%s batch=%u wakee=light_periodic select_median_ns=%llu "
		  "select_min_ns=%llu select_p90_ns=%llu select_cpu=%d", from, buddy, policy->reasons[why], batch,
		  (unsigned long long)s.med, (unsigned long long)s.min, (unsigned long long)s.p90, placed);
	blocker_stop(w);
}

/* ------------------------------------------------------------ PELT */

static const uint32_t pelt_elapsed_us[] = { 100, 1000, 10000, 100000, 1000000, 10000000 };
#define NR_ELAPSED (sizeof(pelt_elapsed_us) / sizeof(pelt_elapsed_us[0]))

static uint64_t pelt_per_call[2][NR_ELAPSED][3];	/* [impl][elapsed]{med, min, max} */

static void pelt_fn(void *arg)
{
	(void)arg;
	bg_wait();
	for (int impl = 0; impl < 2; impl++)
		for (unsigned e = 0; e < NR_ELAPSED; e++) {
			uint64_t dt = (uint64_t)pelt_elapsed_us[e] * NSEC_PER_USEC, t = 0;
			bool slow = impl == 1 && pelt_elapsed_us[e] >= 100000;
			unsigned batch = slow ? 2 : 32, reps = slow ? 11 : (mb.reps < 51 ? mb.reps : 51);
			struct sched_avg sa;
			struct stats s;

			pelt_init(&sa, 0);
			for (int i = 0; i < 40; i++) {	/* some history, as a live entity has */
				t += 700 * NSEC_PER_USEC + (uint64_t)i * 3000;
				if (impl)
					pelt_update_seed_loop(&sa, t, true, i & 1);
				else
					pelt_update(&sa, t, true, i & 1);
			}
			for (unsigned r = 0; r < reps; r++) {
				unsigned long flags = arch_irq_save();
				uint64_t t0 = arch_now_ns(), t1;

				for (unsigned b = 0; b < batch; b++) {
					t += dt;
					if (impl)
						pelt_update_seed_loop(&sa, t, true, b & 1);
					else
						pelt_update(&sa, t, true, b & 1);
				}
				t1 = arch_now_ns();
				arch_irq_restore(flags);
				sa_[r] = sub_sat(t1 - t0, mb.ovh) / batch;
			}
			s = stats_of(sa_, reps);
			pelt_per_call[impl][e][0] = s.med;
			pelt_per_call[impl][e][1] = s.min;
			pelt_per_call[impl][e][2] = s.max;
		}
}

/* ------------------------------------------------------------ idle */

static int idle_state_of[2];

static void idle_fn(void *arg)
{
	struct cpu_idle *ci = cpu_idle_of(mb.cpu);
	struct idle_gov saved = ci->gov;

	(void)arg;
	bg_wait();
	for (int deep = 0; deep < 2; deep++) {
		uint64_t u0[IDLE_MAX_STATES], u1[IDLE_MAX_STATES];
		uint64_t *out = deep ? sb_ : sa_;

		memcpy(u0, ci->usage, sizeof(u0));
		for (unsigned i = 0; i < mb.reps + MB_WARM; i++) {
			unsigned long flags = arch_irq_save();
			uint64_t t0, t1;

			ci->gov = saved;	/* the same prediction every time (each entry still learns from the last idle: its cost counts) */
			arch_send_reschedule(mb.cpu);	/* pending: the WFI returns at once */
			t0 = arch_now_ns();
			cpu_idle_enter(mb.cpu, deep ? TIMER_NEVER : t0 + 100 * NSEC_PER_USEC);
			t1 = arch_now_ns();
			arch_irq_restore(flags);
			if (i >= MB_WARM)
				out[i - MB_WARM] = sub_sat(t1 - t0, mb.ovh);
		}
		memcpy(u1, ci->usage, sizeof(u1));
		idle_state_of[deep] = (int)argmax(u0, u1, (unsigned)ci->nr_states);
	}
	ci->gov = saved;
	ci->unreflected_ns = UINT64_MAX;	/* nor learnt at the next real idle */
	mb.n = mb.reps;
}

/* ------------------------------------------------------------ driver */

/*
 * The *_fifo figures are ctxsw, wake_local and wake_busy with the measured
 * task (and ctxsw's partners) at SCHED_FIFO 80; the background stays
 * SCHED_OTHER, so wake_busy_fifo is an RT task preempting a fair spinner.
 */
enum fig { F_CTXSW, F_WAKE_LOCAL, F_WAKE_BUSY, F_WAKE_REMOTE, F_TICK, F_TICK_IRQ, F_SELECT, F_PACK, F_PELT,
	   F_IDLE, F_MEM, F_CTXSW_FIFO, F_WAKE_FIFO, F_WAKE_BUSY_FIFO, F_NR };
static const char *const fig_names[F_NR] = {
	"ctxsw", "wake_local", "wake_busy", "wake_remote", "tick", "tick_irq", "select", "pack", "pelt", "idle",
	"mem", "ctxsw_fifo", "wake_fifo", "wake_busy_fifo",
};
#define MB_FIFO_PRIO 80

/*
 * Run @fn pinned to @cpu with @nbg background yielders on @bg_cpu; join
 * everything. The measured task is created first, at nice -20, and
 * switches to @nice in bg_wait(): a new task starts a slice of vruntime
 * behind min_vruntime (6 ms when alone at nice 0), which 999 yielders that
 * run ~1 us at a time would take seconds to catch up with; at nice -20 the
 * slice is ~1/87 of that in vruntime.
 */
static bool run_on(int cpu, void (*fn)(void *), int nice, int bg_cpu, int nbg)
{
	struct task *t;

	mb.failed = false;
	mb.extra[0] = '\0';
	mb.n = 0;
	bg_reset();
	bg.want = nbg;
	mb.go_bg = false;
	mb.nice = nice;
	t = spawn("microbench", fn, NULL, NICE_MIN, 1u << cpu);
	if (t) {
		while (!READ_ONCE(mb.go_bg) && READ_ONCE(t->state) != TASK_EXITED)
			task_sleep_ns(10 * NSEC_PER_USEC);
		bg_start(bg_cpu, nbg);
		task_join(t);
	}
	bg_stop();
	return t && !mb.failed;
}

/* The CPU select measures on: one that is its own pack buddy (the whole test), else @dflt. */
static int self_buddy_cpu(int dflt)
{
	for (int c = 1; c < sched_nr_cpus(); c++)
		if (sched_topo.pack_buddy[c] == c)
			return c;
	if (sched_nr_cpus() > 0 && sched_topo.pack_buddy[0] == 0)
		return 0;
	return dflt;
}

static void run_fig(enum fig f, int cpu, int tasks)
{
	struct energy_snapshot from;
	struct stats s;
	int nbg = tasks - 1;
	char extra[320];

	mb.tasks = tasks;
	mb.cpu = cpu;
	mb.cpu2 = (cpu + 1) % sched_nr_cpus();
	mb.stop = false;
	mb.w = NULL;
	mb.done = 0;
	mb.policy = SCHED_OTHER;
	mb.prio = 0;
	mb.rt_prio = f == F_CTXSW_FIFO || f == F_WAKE_FIFO || f == F_WAKE_BUSY_FIFO ? MB_FIFO_PRIO : 0;
	energy_take_snapshot(&from);
	switch (f) {
	case F_CTXSW:
	case F_CTXSW_FIFO:
		mb.local_bg = nbg < 1 ? 1 : nbg;	/* ctxsw_fn creates its own partners */
		if (!run_on(cpu, ctxsw_fn, 0, cpu, 0))
			break;
		s = stats_of(sa_, mb.n);
		result(fig_names[f], &s, mb.extra, &from);
		break;
	case F_WAKE_LOCAL:
	case F_WAKE_BUSY:
	case F_WAKE_REMOTE:
	case F_WAKE_FIFO:
	case F_WAKE_BUSY_FIFO: {
		bool remote = f == F_WAKE_REMOTE;
		struct stats cb, irq, split;
		struct task *w = NULL;

		if (remote) {
			if (sched_nr_cpus() < 2)
				break;
			w = spawn("mb-sleeper", blocker_fn, NULL, WAKEE_NICE, 1u << mb.cpu2);
			if (!w)
				break;
			if (!run_on(cpu, wake_remote_fn, 0, mb.cpu2, nbg)) {
				blocker_stop(w);
				break;
			}
			blocker_stop(w);
		} else if (f == F_WAKE_BUSY || f == F_WAKE_BUSY_FIFO) {
			bool ok;

			bg.spin = true;
			ok = run_on(cpu, wake_local_fn, WAKEE_NICE, cpu, nbg < 1 ? 1 : nbg);
			bg.spin = false;
			if (!ok)
				break;
		} else {
			/*
			 * From WFI, as the figure says: the governor, left to
			 * itself, picks a deeper state for some sleeps and not
			 * others by what it learnt before (the figures run
			 * earlier), and the samples' fastest moved by a state's
			 * exit (~50 instructions) with them. Deeper states have
			 * their own figure (idle).
			 */
			uint64_t limit = idle_latency_limit_ns;
			bool ok;

			idle_set_latency_limit(0);
			ok = run_on(cpu, wake_local_fn, WAKEE_NICE, cpu, nbg);
			idle_set_latency_limit(limit);
			if (!ok)
				break;
		}
		s = stats_of(sa_, mb.n);
		/*
		 * The split reps' own wholes (expiry -> callback -> run, rep by
		 * rep) before their parts are sorted apart: the sum of two
		 * medians is not the median of the sums.
		 */
		for (unsigned k = 0; k < mb.n_split; k++)
			sa_[k] = sb_[k] + sc_[k];
		split = stats_of(sa_, mb.n_split);
		cb = stats_of(sb_, mb.n_split);
		irq = stats_of(sc_, mb.n_split);
		ksnprintf(extra, sizeof(extra), "cb_median_ns=%llu cb_min_ns=%llu cb_max_ns=%llu "
			  "expiry_to_cb_median_ns=%llu split_median_ns=%llu target_cpu=%d",
			  (unsigned long long)cb.med, (unsigned long long)cb.min, (unsigned long long)cb.max,
			  (unsigned long long)irq.med, (unsigned long long)split.med, remote ? mb.cpu2 : cpu);
		result(fig_names[f], &s, extra, &from);
		break;
	}
	case F_TICK:
		if (!run_on(cpu, tick_direct_fn, 0, cpu, nbg))
			break;
		s = stats_of(sa_, mb.n);
		result("tick", &s, "", &from);
		break;
	case F_TICK_IRQ:
		if (!run_on(cpu, tick_irq_fn, WAKEE_NICE, cpu, nbg))
			break;
		s = stats_of(sa_, mb.n);
		result("tick_irq", &s, mb.extra, &from);
		break;
	case F_SELECT:
		mb.cpu = self_buddy_cpu(cpu);
		if (!run_on(mb.cpu, select_fn, 0, mb.cpu, nbg))
			break;
		s = stats_of(sa_, mb.n);
		result("select", &s, mb.extra, &from);
		break;
	case F_PACK:
		if (!run_on(cpu, pack_fn, BUSY_NICE, cpu, nbg))
			break;
		s = stats_of(sa_, mb.n);
		result("pack", &s, mb.extra, &from);
		break;
	case F_PELT:
		if (!run_on(cpu, pelt_fn, BUSY_NICE, cpu, nbg))
			break;
		for (int impl = 0; impl < 2; impl++)
			for (unsigned e = 0; e < NR_ELAPSED; e++) {
				struct stats p = { 0, pelt_per_call[impl][e][1], pelt_per_call[impl][e][0], 0,
						   pelt_per_call[impl][e][2], 0 };

				p.n = impl == 1 && pelt_elapsed_us[e] >= 100000 ? 11 : (mb.reps < 51 ? mb.reps : 51);
				p.p90 = p.max;
				ksnprintf(extra, sizeof(extra), "impl=%s elapsed_us=%u", impl ? "seed_loop" : "o1",
					  (unsigned)pelt_elapsed_us[e]);
				result("pelt", &p, extra, &from);
			}
		break;
	case F_IDLE: {
		const struct cpu_idle *ci = cpu_idle_of(cpu);

		if (!run_on(cpu, idle_fn, BUSY_NICE, cpu, nbg))
			break;
		for (int deep = 0; deep < 2; deep++) {
			s = stats_of(deep ? sb_ : sa_, mb.n);
			ksnprintf(extra, sizeof(extra), "sleep=%s state=%s", deep ? "unbounded" : "100us",
				  ci->states[idle_state_of[deep]].name);
			result("idle", &s, extra, &from);
		}
		break;
	}
	case F_MEM:
		s = (struct stats){ 1, 0, 0, 0, 0, 0 };
		ksnprintf(extra, sizeof(extra),
			  "task_struct_bytes=%u task_stack_bytes=%u task_guard_bytes=%u max_tasks=%u "
			  "rq_bytes=%u timer_slot_bytes=%u timers_per_cpu=%u nr_cpus=%d",
			  (unsigned)sizeof(struct task), (unsigned)TASK_STACK_SIZE,
#ifdef TASK_GUARD_SIZE
			  (unsigned)TASK_GUARD_SIZE,
#else
			  0u,
#endif
			  (unsigned)MAX_TASKS, (unsigned)sizeof(struct rq), (unsigned)sizeof(struct timer *),
			  (unsigned)TIMERS_PER_CPU, sched_nr_cpus());
		result("mem", &s, extra, &from);
		break;
	default:
		break;
	}
	if (mb.failed)
		kprintf("error: microbench: %s tasks=%d did not complete\n", fig_names[f], tasks);
}

static bool parse_list(const char *s, int *out, int max, int *n, int lo, int hi)
{
	*n = 0;
	while (*s) {
		char *end;
		long v = strtol(s, &end, 10);

		if (end == s || v < lo || v > hi || *n >= max)
			return false;
		out[(*n)++] = (int)v;
		s = end;
		if (*s == ',')
			s++;
		else if (*s)
			return false;
	}
	return *n > 0;
}

static int cmd_microbench(int argc, char **argv)
{
	bool want[F_NR] = { false };
	int tasks[MB_MAX_COUNTS] = { 1 }, ntasks = 1, cpu = sched_nr_cpus() > 1 ? 1 : 0;
	unsigned long reps = 101;
	bool any = false;
	int rc = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strncmp(a, "tasks=", 6) == 0) {
			if (!parse_list(a + 6, tasks, MB_MAX_COUNTS, &ntasks, 1, MB_MAX_BG)) {
				kprintf("error: microbench: tasks= takes counts 1..%d separated by ','\n", MB_MAX_BG);
				return 1;
			}
		} else if (strncmp(a, "reps=", 5) == 0) {
			char *end;

			reps = strtoul(a + 5, &end, 10);
			if (*end || reps < 5 || reps > MB_MAX_REPS - MB_WARM) {
				kprintf("error: microbench: reps= takes 5..%d\n", MB_MAX_REPS - MB_WARM);
				return 1;
			}
		} else if (strncmp(a, "cpu=", 4) == 0) {
			char *end;
			long c = strtol(a + 4, &end, 10);

			if (*end || c < 0 || c >= sched_nr_cpus()) {
				kprintf("error: microbench: cpu= takes 0..%d\n", sched_nr_cpus() - 1);
				return 1;
			}
			cpu = (int)c;
		} else {
			char list[128];
			char *p = list;

			if (strlen(a) >= sizeof(list)) {
				kprintf("error: microbench: argument too long\n");
				return 1;
			}
			memcpy(list, a, strlen(a) + 1);	/* fits: checked above */
			while (p && *p) {
				char *comma = strchr(p, ',');
				int f;

				if (comma)
					*comma = '\0';
				if (strcmp(p, "all") == 0) {
					for (f = 0; f < F_NR; f++)
						want[f] = true;
				} else {
					for (f = 0; f < F_NR && strcmp(p, fig_names[f]) != 0; f++)
						;
					if (f == F_NR) {
						kprintf("error: microbench: unknown figure '%s' (all ctxsw wake_local wake_busy "
							"wake_remote tick tick_irq select pack pelt idle mem ctxsw_fifo "
							"wake_fifo wake_busy_fifo)\n", p);
						return 1;
					}
					want[f] = true;
				}
				any = true;
				p = comma ? comma + 1 : NULL;
			}
		}
	}
	if (!any)
		for (int f = 0; f < F_NR; f++)
			want[f] = true;
	if (mb_busy) {
		kprintf("error: microbench: already running\n");
		return 1;
	}
	mb_busy = true;
	mb.reps = (unsigned)reps;
	mb.cpu = cpu;
	mb.ovh = clock_overhead();
	kprintf("microbench: board=%s cpu=%d reps=%u clock_read_ns=%llu\n", BOARD_NAME, cpu, mb.reps,
		(unsigned long long)mb.ovh);
	for (int t = 0; t < ntasks; t++)
		for (int f = 0; f < F_NR; f++) {
			if (!want[f] || (f == F_MEM && t > 0))
				continue;
			mb.ovh = clock_overhead();
			run_fig((enum fig)f, cpu, tasks[t]);
			if (mb.failed)
				rc = 1;
		}
	mb_busy = false;
	return rc;
}

static const struct shell_cmd commands[] = {
	{ "microbench", "[FIG,...|all] [tasks=N,...] [reps=R] [cpu=C]",
	  "scheduler costs in ns (= instructions under icount)", cmd_microbench },
};

SHELL_COMMANDS(commands);

#endif /* !HOST_BUILD: the simulator and host tests have no microbench */
