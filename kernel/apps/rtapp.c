/*
 * rt-app workloads in the kernel: the `rtapp` console command, with the
 * semantics of scheduler-tools/rt-app (doc/tutorial.txt, src/rt-app.c).
 * tools/rtapp translates an rt-app JSON file into these commands.
 *
 *   rtapp add NAME [i=N] [l=LOOP] [n=NICE] [m=MASK] [d=DELAY_US] PHASE [PHASE...]
 *	one task spec (a JSON task object): i instances (default 1, 0 = none),
 *	l thread loop (default -1: until the run ends; 0: never runs), n nice
 *	(-20..19), m affinity as a hex CPU mask (default every CPU), d initial
 *	delay in us. Up to RTAPP_MAX_SPECS specs, RTAPP_MAX_THREADS instances
 *	in all, RTAPP_MAX_PHASES phases per spec.
 *   PHASE: comma-separated items, events in execution order (at most
 *	RTAPP_MAX_EVENTS per phase, at least one):
 *	x<loop>		phase loop (default 1; -1 = stay in this phase)
 *	m<hexmask>	phase affinity (default: the task's)
 *	n<nice>		set this nice at the start of the phase (kept after)
 *	r<us>		run: a fixed amount of CPU work, us x the calibrated rate
 *	R<us>		runtime: busy until us of wall time have passed
 *	s<us>		sleep us
 *	t<us>:g<k>	timer of period us on shared timer k (0..7): every thread
 *			naming g<k> advances the same timeline (rt-app's named
 *			timer resource)
 *	t<us>:u<k>	timer on this thread's own timer k (rt-app "unique*" refs:
 *			one timeline per instance)
 *	T<us>:...	the same timer in absolute mode (rt-app "mode": "absolute";
 *			one absolute use makes the whole timer absolute)
 *	e.g. rtapp add periodic i=4 r1600,t16000:u0
 *   rtapp run MS [log=N]
 *	create every instance, start them together (t_zero, 2 ms ahead), stop
 *	them MS ms later (0: when they all finish; refused if one loops
 *	forever), join them and print, per instance and phase:
 *	  rtapp: task=NAME inst=I tid=T cpu=C phase=P loops=L period_us=
 *	  c_run_us= run_us= run_max_us= act_period_us= slack_us= slack_min_us=
 *	  wakeups= lat_min_us= lat_avg_us= lat_max_us= overruns=
 *	then, with log=N, the first N phase loops of each instance as rt-app
 *	logs them (rtapp-log: ... run= period= rel_st= slack= c_duration=
 *	c_period= wu_lat=), and one RESULT line with the energy fields.
 *   rtapp list		the specs, in `rtapp add` form
 *   rtapp clear	forget them
 *   rtapp cal		the "run" calibration
 *
 * Metrics, as rt-app defines them per phase loop: run = wall time spent in
 * run/runtime events; period (act_period_us) = wall time of the loop;
 * period_us / c_run_us = the configured timer periods / run times of one
 * loop; slack = programmed timer boundary - time the timer event was reached
 * (the last timer of the loop; negative: overrun); wake-up latency = timer
 * wake-up time - programmed boundary. An overrun timer does not sleep; in
 * relative mode its timeline restarts from now.
 *
 * "run" is a calibrated loop, not clock polling: under QEMU icount, a clock
 * read by a busy vCPU can hand the host thread to another vCPU for its whole
 * slice (see duty_fn in kernel/console/sched_commands.c), so the loop count for a
 * microsecond is measured once, at registration, on the boot CPU (the best
 * of RTAPP_CAL_TRIALS runs of RTAPP_CAL_LOOPS iterations timed with
 * arch_now_ns()). Like rt-app's run it is a fixed amount of work: it takes
 * longer when the CPU is slower or shared, and in icount mode busy vCPUs
 * share virtual time, so N CPUs working at once each take ~N times as long.
 * "runtime" polls arch_now_ns() (every <= 32 us of work, as rt-app does):
 * a fixed wall time, whatever work that is.
 *
 * One run at a time; add/clear/list are refused while a run is in progress.
 */
#include "kernel/rtapp.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arch/cost.h"
#include "arch/spinlock.h"
#include "kernel/energy.h"
#include "kernel/cmdline.h"
#include "kernel/format.h"
#include "kernel/printk.h"
#include "kernel/result.h"
#include "kernel/sched.h"
#include "kernel/shell.h"
#include "kernel/time.h"
#include "kernel/timer.h"
#include "kernel/topology.h"


#define RTAPP_MAX_SPECS 16
#define RTAPP_MAX_PHASES 4
#define RTAPP_MAX_EVENTS 8
#define RTAPP_MAX_THREADS 32
#define RTAPP_MAX_TIMERS 8
#define RTAPP_MAX_US 100000000L		/* one event: 100 s */
#define RTAPP_MAX_MS 600000L		/* one run: 10 min */
#define RTAPP_NAME_LEN 12		/* 11 characters; the task is NAME-<inst> */
#define RTAPP_LOG_MAX 32
#define RTAPP_START_LEAD_NS (2 * NSEC_PER_MSEC)
#define RTAPP_CAL_LOOPS 200000u
#define RTAPP_CAL_TRIALS 3
#define RTAPP_RUN_CHUNK_US 1000u	/* a stop is seen within one chunk */
#define RTAPP_RUNTIME_POLL_US 32u
#define NICE_KEEP 127

enum rt_ev_type { EV_RUN, EV_RUNTIME, EV_SLEEP, EV_TIMER };

struct rt_event {
	uint8_t type;
	uint8_t timer;			/* timer id */
	bool unique;			/* per thread (u<k>) or shared (g<k>) */
	bool absolute;
	uint32_t us;
};

struct rt_phase {
	int32_t loop;			/* -1 or >= 1 */
	uint32_t mask;			/* 0: the task's */
	int nice;			/* NICE_KEEP: unchanged */
	int nr_events;
	struct rt_event ev[RTAPP_MAX_EVENTS];
};

struct rt_spec {
	char name[RTAPP_NAME_LEN];
	int instances;
	int32_t loop;			/* thread loop, -1: forever */
	int nice;
	uint32_t mask;			/* 0: every CPU */
	uint32_t delay_us;
	int nr_phases;
	struct rt_phase ph[RTAPP_MAX_PHASES];
};

struct rt_timer {
	spinlock_t lock;
	bool init, relative;
	uint64_t next;			/* next boundary, ns */
};

/* One instance's statistics for one phase (ns). */
struct rt_pstat {
	uint32_t loops, overruns, nslack, nlat;
	uint64_t run_sum, run_max, period_sum;
	int64_t slack_min, slack_sum;
	uint64_t lat_min, lat_max, lat_sum;
};

/* One phase loop, as rt-app logs it (us). */
struct rt_rec {
	uint8_t phase;
	uint32_t run, period, rel_st, wu_lat;
	int32_t slack;
};

struct rt_thread {
	struct task *task;
	const struct rt_spec *spec;
	int inst;
	uint32_t tid;
	int last_cpu;
	struct rt_timer timers[RTAPP_MAX_TIMERS];	/* unique timers */
	struct rt_pstat st[RTAPP_MAX_PHASES];
	int nrec;
	struct rt_rec rec[RTAPP_LOG_MAX];
};

/* Accumulated over one phase loop (rt-app's log_data). */
struct rt_ldata {
	uint64_t run_ns, wu_lat_ns;
	int64_t slack_ns;
	bool has_slack;
};

static struct {
	spinlock_t lock;		/* guards busy */
	bool busy;
	uint64_t loops_per_ms;		/* "run" calibration */
	int nr_specs;
	struct rt_spec specs[RTAPP_MAX_SPECS];
	/* The run in progress. */
	struct rt_timer timers[RTAPP_MAX_TIMERS];	/* shared timers */
	struct rt_thread threads[RTAPP_MAX_THREADS];
	int nr_threads, log_max;
	uint64_t t_zero, end_ns;
	bool stop;
} ra = { .lock = SPINLOCK_INIT };

static uint32_t all_cpus(void)
{
	return sched_possible_mask();
}

static bool stopped(void)
{
	return __atomic_load_n(&ra.stop, __ATOMIC_ACQUIRE);
}

/* ------------------------------------------------------------ work */

/* @loops iterations of a loop the compiler cannot remove or shorten. */
static uint64_t __attribute__((noinline)) rt_loop(uint64_t loops)
{
	uint32_t s = 0, n = (uint32_t)loops;	/* chunks: far below 2^32 */

	for (uint32_t i = 0; i < n; i++) {
		s += i;
		__asm__ volatile("" : "+r"(s));
	}
	return s;
}

/* What @loops cost at capacity 1024: 4 instructions a trip, as QEMU counts them (docs/schedsim.md). */
static uint64_t rt_loop_cost_ns(uint64_t loops)
{
	return loops * 4;
}

/* The work: run on the CPU, or charged by a port that models time (include/arch/cost.h). */
static void rt_burn(uint64_t loops)
{
	(void)arch_work(rt_loop, rt_loop_cost_ns, loops);
}

static uint64_t loops_for_us(uint64_t us)
{
	return us * ra.loops_per_ms / 1000;
}

static void rt_calibrate(void)
{
	uint64_t best = UINT64_MAX;

	rt_burn(RTAPP_CAL_LOOPS / 8);	/* warm the caches */
	for (int i = 0; i < RTAPP_CAL_TRIALS; i++) {
		uint64_t t0 = arch_now_ns(), dt;

		rt_burn(RTAPP_CAL_LOOPS);
		dt = arch_now_ns() - t0;
		if (dt < best)
			best = dt;
	}
	if (best == 0)
		best = 1;
	ra.loops_per_ms = (uint64_t)RTAPP_CAL_LOOPS * NSEC_PER_MSEC / best;
	if (ra.loops_per_ms == 0)
		ra.loops_per_ms = 1;
}

/* Sleep until @t; false if the run ends first (then sleep only until its end). */
static bool rt_sleep_until(uint64_t t)
{
	if (t >= ra.end_ns) {
		task_sleep_until(ra.end_ns);
		return false;
	}
	task_sleep_until(t);
	return !stopped();
}

/* run: fixed work, in chunks so that the end of the run is noticed. */
static bool ev_run(uint32_t us)
{
	uint64_t loops = loops_for_us(us), chunk = loops_for_us(RTAPP_RUN_CHUNK_US);

	if (chunk == 0)
		chunk = 1;
	while (loops) {
		uint64_t n = loops < chunk ? loops : chunk;

		if (stopped())
			return false;
		rt_burn(n);
		loops -= n;
	}
	return true;
}

/* runtime: busy until @us of wall time have passed. */
static bool ev_runtime(uint32_t us)
{
	uint64_t now = arch_now_ns(), until = now + (uint64_t)us * NSEC_PER_USEC;

	while (now < until) {
		uint64_t left_us = (until - now + NSEC_PER_USEC - 1) / NSEC_PER_USEC;
		uint64_t n = loops_for_us(left_us < RTAPP_RUNTIME_POLL_US ? left_us : RTAPP_RUNTIME_POLL_US);

		if (stopped() || now >= ra.end_ns)
			return false;
		rt_burn(n ? n : 1);
		now = arch_now_ns();
	}
	return true;
}

static bool ev_timer(struct rt_thread *th, const struct rt_event *ev, uint64_t t_first,
		     struct rt_pstat *st, struct rt_ldata *ld)
{
	struct rt_timer *tm = ev->unique ? &th->timers[ev->timer] : &ra.timers[ev->timer];
	uint64_t next, now, lat;
	unsigned long flags;
	bool overrun;

	flags = spin_lock_irqsave(&tm->lock);
	if (!tm->init) {
		tm->init = true;
		tm->next = t_first;
	}
	tm->next += (uint64_t)ev->us * NSEC_PER_USEC;
	next = tm->next;
	now = arch_now_ns();
	overrun = now >= next;
	if (overrun && tm->relative)
		tm->next = now;
	spin_unlock_irqrestore(&tm->lock, flags);
	ld->slack_ns = (int64_t)(next - now);
	ld->has_slack = true;
	if (overrun) {
		st->overruns++;
		ld->wu_lat_ns = 0;	/* as rt-app */
		return !stopped();
	}
	if (!rt_sleep_until(next))
		return false;
	lat = arch_now_ns() - next;
	ld->wu_lat_ns += lat;
	if (st->nlat == 0 || lat < st->lat_min)
		st->lat_min = lat;
	if (lat > st->lat_max)
		st->lat_max = lat;
	st->lat_sum += lat;
	st->nlat++;
	return true;
}

/* One loop of @ph; false if the run ended during it (the loop is then not counted). */
static bool rt_run_phase(struct rt_thread *th, const struct rt_phase *ph, uint64_t t_first,
			 struct rt_pstat *st, struct rt_ldata *ld)
{
	for (int i = 0; i < ph->nr_events; i++) {
		const struct rt_event *ev = &ph->ev[i];
		uint64_t t;
		bool ok;

		if (stopped())
			return false;
		switch (ev->type) {
		case EV_RUN:
		case EV_RUNTIME:
			t = arch_now_ns();
			ok = ev->type == EV_RUN ? ev_run(ev->us) : ev_runtime(ev->us);
			ld->run_ns += arch_now_ns() - t;
			break;
		case EV_SLEEP:
			ok = rt_sleep_until(arch_now_ns() + (uint64_t)ev->us * NSEC_PER_USEC);
			break;
		default:
			ok = ev_timer(th, ev, t_first, st, ld);
			break;
		}
		if (!ok)
			return false;
	}
	return true;
}

static uint32_t us32(uint64_t ns)
{
	uint64_t us = ns / NSEC_PER_USEC;

	return us > UINT32_MAX ? UINT32_MAX : (uint32_t)us;
}

static void rt_account(struct rt_thread *th, int phase, const struct rt_ldata *ld, uint64_t t0, uint64_t t1)
{
	struct rt_pstat *st = &th->st[phase];

	st->loops++;
	st->run_sum += ld->run_ns;
	if (ld->run_ns > st->run_max)
		st->run_max = ld->run_ns;
	st->period_sum += t1 - t0;
	if (ld->has_slack) {
		if (st->nslack == 0 || ld->slack_ns < st->slack_min)
			st->slack_min = ld->slack_ns;
		st->slack_sum += ld->slack_ns;
		st->nslack++;
	}
	if (th->nrec < ra.log_max) {
		struct rt_rec *r = &th->rec[th->nrec++];

		r->phase = (uint8_t)phase;
		r->run = us32(ld->run_ns);
		r->period = us32(t1 - t0);
		r->rel_st = us32(t0 > ra.t_zero ? t0 - ra.t_zero : 0);
		r->slack = (int32_t)(ld->slack_ns / (int64_t)NSEC_PER_USEC);
		r->wu_lat = us32(ld->wu_lat_ns);
	}
}

static void rt_thread_fn(void *arg)
{
	struct rt_thread *th = arg;
	const struct rt_spec *sp = th->spec;
	struct task *self = current_task();
	uint32_t task_mask = sp->mask ? sp->mask : all_cpus(), cur_mask = task_mask;
	uint64_t t_first = ra.t_zero + (uint64_t)sp->delay_us * NSEC_PER_USEC;

	/* rt-app's start barrier, then the task's delay. */
	if (rt_sleep_until(t_first)) {
		int32_t ploop = 0, tloop = 0;
		int phase = 0;

		while (!stopped() && tloop != sp->loop) {
			const struct rt_phase *ph = &sp->ph[phase];
			uint32_t mask = ph->mask ? ph->mask : task_mask;
			struct rt_ldata ld;
			uint64_t t0, t1;

			if (mask != cur_mask) {
				task_set_affinity(self, mask);
				cur_mask = mask;
				task_yield();	/* move now if this CPU is no longer allowed */
			}
			if (ph->nice != NICE_KEEP && ph->nice != self->se.nice)
				task_set_nice(self, ph->nice);
			memset(&ld, 0, sizeof(ld));
			t0 = arch_now_ns();
			if (!rt_run_phase(th, ph, t_first, &th->st[phase], &ld))
				break;
			t1 = arch_now_ns();
			rt_account(th, phase, &ld, t0, t1);
			if (++ploop == ph->loop) {
				ploop = 0;
				if (++phase == sp->nr_phases) {
					phase = 0;
					if (++tloop < 0)	/* loop -1: forever */
						tloop = 0;
				}
			}
		}
	}
	th->last_cpu = self->cpu;
}

/* ------------------------------------------------------------ parsing */

/* A hex CPU mask ("0x1c" or "1c"), non-zero, only CPUs this board has. */
static bool parse_mask(const char *s, uint32_t *out, const char *what)
{
	char *end;
	unsigned long long v;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	if (!*s || *s == '-' || *s == '+') {
		kprintf("error: rtapp: %s: '%s' is not a hex CPU mask\n", what, s);
		return false;
	}
	v = strtoull(s, &end, 16);
	if (*end || v == 0 || v > UINT32_MAX) {
		kprintf("error: rtapp: %s: '%s' is not a non-zero hex CPU mask\n", what, s);
		return false;
	}
	if (v & ~(unsigned long long)all_cpus()) {
		kprintf("error: rtapp: %s: CPU mask 0x%llx names CPUs this board lacks (%d CPUs: 0x%x)\n", what, v,
			sched_nr_cpus(), (unsigned)all_cpus());
		return false;
	}
	*out = (uint32_t)v;
	return true;
}

/* "<us>:g<k>" or "<us>:u<k>" after the t/T. */
static bool parse_timer(char *s, struct rt_event *ev)
{
	char *colon = strchr(s, ':');
	long us, k;

	if (!colon)
		return false;
	*colon = '\0';
	if (!cmdline_parse_long(s, 0, RTAPP_MAX_US, &us) || (colon[1] != 'g' && colon[1] != 'u') ||
	    !cmdline_parse_long(colon + 2, 0, RTAPP_MAX_TIMERS - 1, &k)) {
		*colon = ':';
		return false;
	}
	*colon = ':';
	ev->us = (uint32_t)us;
	ev->unique = colon[1] == 'u';
	ev->timer = (uint8_t)k;
	return true;
}

static bool parse_phase(char *word, struct rt_phase *ph, const char *name, int idx)
{
	char *item = word;

	memset(ph, 0, sizeof(*ph));
	ph->loop = 1;
	ph->nice = NICE_KEEP;
	while (item) {
		char *comma = strchr(item, ',');
		char what[48];
		long v = 0;
		bool ok = true;

		if (comma)
			*comma = '\0';
		ksnprintf(what, sizeof(what), "task '%s' phase %d", name, idx);
		switch (item[0]) {
		case 'x':
			ok = cmdline_parse_long(item + 1, -1, INT32_MAX, &v) && v != 0;
			ph->loop = (int32_t)v;
			break;
		case 'm':
			if (!parse_mask(item + 1, &ph->mask, what))
				return false;
			break;
		case 'n':
			ok = cmdline_parse_long(item + 1, NICE_MIN, NICE_MAX, &v);
			ph->nice = (int)v;
			break;
		case 'r':
		case 'R':
		case 's':
		case 't':
		case 'T': {
			struct rt_event *ev;

			if (ph->nr_events == RTAPP_MAX_EVENTS) {
				kprintf("error: rtapp: %s has more than %d events\n", what, RTAPP_MAX_EVENTS);
				return false;
			}
			ev = &ph->ev[ph->nr_events];
			memset(ev, 0, sizeof(*ev));
			if (item[0] == 't' || item[0] == 'T') {
				ev->type = EV_TIMER;
				ev->absolute = item[0] == 'T';
				ok = parse_timer(item + 1, ev);
			} else {
				ev->type = item[0] == 'r' ? EV_RUN : item[0] == 'R' ? EV_RUNTIME : EV_SLEEP;
				ok = cmdline_parse_long(item + 1, 0, RTAPP_MAX_US, &v);
				ev->us = (uint32_t)v;
			}
			if (ok)
				ph->nr_events++;
			break;
		}
		default:
			kprintf("error: rtapp: %s: unknown item '%s' (x m n r R s t T)\n", what, item);
			return false;
		}
		if (!ok) {
			kprintf("error: rtapp: %s: bad item '%s'\n", what, item);
			return false;
		}
		item = comma ? comma + 1 : NULL;
	}
	if (ph->nr_events == 0) {
		kprintf("error: rtapp: task '%s' phase %d has no events\n", name, idx);
		return false;
	}
	return true;
}

static int total_instances(void)
{
	int n = 0;

	for (int i = 0; i < ra.nr_specs; i++)
		n += ra.specs[i].instances;
	return n;
}

static bool valid_name(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n >= RTAPP_NAME_LEN)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      *s == '_' || *s == '.' || *s == '-'))
			return false;
	return true;
}

static int rt_add(int argc, char **argv)
{
	static struct rt_spec sp;	/* under ra.busy */
	long v = 0;

	if (argc < 2) {
		kprintf("error: rtapp: usage: rtapp add NAME [i=N] [l=LOOP] [n=NICE] [m=MASK] [d=US] PHASE...\n");
		return 1;
	}
	if (ra.nr_specs == RTAPP_MAX_SPECS) {
		kprintf("error: rtapp: too many task specs (max %d); 'rtapp clear' forgets them\n", RTAPP_MAX_SPECS);
		return 1;
	}
	if (!valid_name(argv[0])) {
		kprintf("error: rtapp: task name '%s': 1..%d characters of A-Z a-z 0-9 _ . -\n", argv[0],
			RTAPP_NAME_LEN - 1);
		return 1;
	}
	memset(&sp, 0, sizeof(sp));
	ksnprintf(sp.name, sizeof(sp.name), "%s", argv[0]);
	sp.instances = 1;
	sp.loop = -1;
	for (int i = 1; i < argc; i++) {
		char *w = argv[i];
		bool ok = true;

		if (!strchr(w, '=')) {
			if (sp.nr_phases == RTAPP_MAX_PHASES) {
				kprintf("error: rtapp: task '%s' has more than %d phases\n", sp.name, RTAPP_MAX_PHASES);
				return 1;
			}
			if (!parse_phase(w, &sp.ph[sp.nr_phases], sp.name, sp.nr_phases))
				return 1;
			sp.nr_phases++;
			continue;
		}
		if (w[1] != '=') {
			ok = false;
		} else if (w[0] == 'i') {
			ok = cmdline_parse_long(w + 2, 0, RTAPP_MAX_THREADS, &v);
			sp.instances = (int)v;
		} else if (w[0] == 'l') {
			ok = cmdline_parse_long(w + 2, -1, INT32_MAX, &v);
			sp.loop = (int32_t)v;
		} else if (w[0] == 'n') {
			ok = cmdline_parse_long(w + 2, NICE_MIN, NICE_MAX, &v);
			sp.nice = (int)v;
		} else if (w[0] == 'm') {
			char what[32];

			ksnprintf(what, sizeof(what), "task '%s'", sp.name);
			if (!parse_mask(w + 2, &sp.mask, what))
				return 1;
		} else if (w[0] == 'd') {
			ok = cmdline_parse_long(w + 2, 0, RTAPP_MAX_US, &v);
			sp.delay_us = (uint32_t)v;
		} else {
			ok = false;
		}
		if (!ok) {
			kprintf("error: rtapp: task '%s': bad option '%s' (i=0..%d l=-1.. n=%d..%d m=HEXMASK d=0..%ld)\n",
				sp.name, w, RTAPP_MAX_THREADS, NICE_MIN, NICE_MAX, RTAPP_MAX_US);
			return 1;
		}
	}
	if (sp.nr_phases == 0) {
		kprintf("error: rtapp: task '%s' has no phase\n", sp.name);
		return 1;
	}
	if (total_instances() + sp.instances > RTAPP_MAX_THREADS) {
		kprintf("error: rtapp: too many instances (%d + %d, max %d in all)\n", total_instances(), sp.instances,
			RTAPP_MAX_THREADS);
		return 1;
	}
	ra.specs[ra.nr_specs++] = sp;
	kprintf("rtapp: spec %d '%s' instances=%d phases=%d\n", ra.nr_specs - 1, sp.name, sp.instances,
		sp.nr_phases);
	return 0;
}

/* ------------------------------------------------------------ run */

static bool spec_loops_forever(const struct rt_spec *sp)
{
	if (sp->instances == 0 || sp->loop == 0)
		return false;
	if (sp->loop < 0)
		return true;
	for (int p = 0; p < sp->nr_phases; p++)
		if (sp->ph[p].loop < 0)
			return true;
	return false;
}

static void phase_config(const struct rt_phase *ph, uint64_t *c_run, uint64_t *c_period)
{
	*c_run = *c_period = 0;
	for (int e = 0; e < ph->nr_events; e++) {
		if (ph->ev[e].type == EV_RUN || ph->ev[e].type == EV_RUNTIME)
			*c_run += ph->ev[e].us;
		else if (ph->ev[e].type == EV_TIMER)
			*c_period += ph->ev[e].us;
	}
}

/* Timer modes: a timer is absolute if any use of it is (rt-app sets it per resource). */
static void setup_timers(void)
{
	memset(ra.timers, 0, sizeof(ra.timers));
	for (int k = 0; k < RTAPP_MAX_TIMERS; k++)
		ra.timers[k].relative = true;
	for (int t = 0; t < ra.nr_threads; t++) {
		struct rt_thread *th = &ra.threads[t];

		for (int k = 0; k < RTAPP_MAX_TIMERS; k++)
			th->timers[k].relative = true;
		for (int p = 0; p < th->spec->nr_phases; p++)
			for (int e = 0; e < th->spec->ph[p].nr_events; e++) {
				const struct rt_event *ev = &th->spec->ph[p].ev[e];

				if (ev->type != EV_TIMER || !ev->absolute)
					continue;
				if (ev->unique)
					th->timers[ev->timer].relative = false;
				else
					ra.timers[ev->timer].relative = false;
			}
	}
}

static void print_thread(const struct rt_thread *th)
{
	for (int p = 0; p < th->spec->nr_phases; p++) {
		const struct rt_pstat *st = &th->st[p];
		uint64_t c_run, c_period, n = st->loops ? st->loops : 1;

		phase_config(&th->spec->ph[p], &c_run, &c_period);
		kprintf("rtapp: task=%s inst=%d tid=%u cpu=%d phase=%d loops=%u period_us=%llu c_run_us=%llu "
			"run_us=%llu run_max_us=%llu act_period_us=%llu slack_us=%lld slack_min_us=%lld "
			"wakeups=%u lat_min_us=%llu lat_avg_us=%llu lat_max_us=%llu overruns=%u\n",
			th->spec->name, th->inst, (unsigned)th->tid, th->last_cpu, p, (unsigned)st->loops,
			(unsigned long long)c_period, (unsigned long long)c_run,
			(unsigned long long)(st->run_sum / n / NSEC_PER_USEC),
			(unsigned long long)(st->run_max / NSEC_PER_USEC),
			(unsigned long long)(st->period_sum / n / NSEC_PER_USEC),
			(long long)(st->nslack ? st->slack_sum / (int64_t)st->nslack / (int64_t)NSEC_PER_USEC : 0),
			(long long)(st->nslack ? st->slack_min / (int64_t)NSEC_PER_USEC : 0), (unsigned)st->nlat,
			(unsigned long long)(st->lat_min / NSEC_PER_USEC),
			(unsigned long long)(st->nlat ? st->lat_sum / st->nlat / NSEC_PER_USEC : 0),
			(unsigned long long)(st->lat_max / NSEC_PER_USEC), (unsigned)st->overruns);
	}
}

static void print_log(const struct rt_thread *th)
{
	for (int i = 0; i < th->nrec; i++) {
		const struct rt_rec *r = &th->rec[i];
		uint64_t c_run, c_period;

		phase_config(&th->spec->ph[r->phase], &c_run, &c_period);
		kprintf("rtapp-log: task=%s inst=%d idx=%d phase=%u run=%u period=%u rel_st=%u slack=%d "
			"c_duration=%llu c_period=%llu wu_lat=%u\n", th->spec->name, th->inst, i, (unsigned)r->phase,
			(unsigned)r->run, (unsigned)r->period, (unsigned)r->rel_st, (int)r->slack,
			(unsigned long long)c_run, (unsigned long long)c_period, (unsigned)r->wu_lat);
	}
}

/* "RESULT bench=rtapp board=<board> pack=<mode> " + @fields + the energy fields, as kernel/apps/bench.c. */
static void rt_print_result(const char *fields, const struct energy_snapshot *from)
{
	static char line[1024];		/* under ra.busy */
	struct energy_snapshot to;
	int n;

	energy_take_snapshot(&to);
	n = result_begin(line, sizeof(line), "rtapp");
	if (n < (int)sizeof(line))
		n += ksnprintf(line + n, sizeof(line) - (size_t)n, "%s ", fields);
	if (n < (int)sizeof(line))
		energy_result_fields(line + n, sizeof(line) - (size_t)n, from, &to);
	/* shell_printf: the line can outgrow kprintf's 512-byte buffer. */
	shell_printf("%s\n", line);
}

static void print_summary(uint64_t elapsed_ns, const struct energy_snapshot *from)
{
	uint64_t loops = 0, overruns = 0, nlat = 0, lat_sum = 0, lat_max = 0;
	int64_t slack_min = 0;
	bool have_slack = false;
	char fields[256];

	for (int t = 0; t < ra.nr_threads; t++)
		for (int p = 0; p < ra.threads[t].spec->nr_phases; p++) {
			const struct rt_pstat *st = &ra.threads[t].st[p];

			loops += st->loops;
			overruns += st->overruns;
			nlat += st->nlat;
			lat_sum += st->lat_sum;
			if (st->lat_max > lat_max)
				lat_max = st->lat_max;
			if (st->nslack && (!have_slack || st->slack_min < slack_min)) {
				slack_min = st->slack_min;
				have_slack = true;
			}
		}
	ksnprintf(fields, sizeof(fields), "tasks=%d specs=%d duration_us=%llu loops=%llu overruns=%llu "
		  "slack_min_us=%lld lat_avg_us=%llu lat_max_us=%llu", ra.nr_threads, ra.nr_specs,
		  (unsigned long long)(elapsed_ns / NSEC_PER_USEC), (unsigned long long)loops,
		  (unsigned long long)overruns, (long long)(slack_min / (int64_t)NSEC_PER_USEC),
		  (unsigned long long)(nlat ? lat_sum / nlat / NSEC_PER_USEC : 0),
		  (unsigned long long)(lat_max / NSEC_PER_USEC));
	rt_print_result(fields, from);
}

static int rt_run(int argc, char **argv)
{
	static struct energy_snapshot from;	/* under ra.busy */
	long ms, log_max = 0;
	int created = 0;
	uint64_t t_end;

	if (argc < 1 || !cmdline_parse_long(argv[0], 0, RTAPP_MAX_MS, &ms)) {
		kprintf("error: rtapp: usage: rtapp run <ms 0..%ld> [log=N]\n", RTAPP_MAX_MS);
		return 1;
	}
	for (int i = 1; i < argc; i++)
		if (strncmp(argv[i], "log=", 4) != 0 || !cmdline_parse_long(argv[i] + 4, 0, RTAPP_LOG_MAX, &log_max)) {
			kprintf("error: rtapp: run: bad option '%s' (log=0..%d)\n", argv[i], RTAPP_LOG_MAX);
			return 1;
		}
	if (ra.nr_specs == 0) {
		kprintf("error: rtapp: no task specs (rtapp add ...)\n");
		return 1;
	}
	for (int s = 0; s < ra.nr_specs; s++)
		if (ms == 0 && spec_loops_forever(&ra.specs[s])) {
			kprintf("error: rtapp: task '%s' loops forever: give the run a duration\n", ra.specs[s].name);
			return 1;
		}
	memset(ra.threads, 0, sizeof(ra.threads));
	ra.nr_threads = 0;
	for (int s = 0; s < ra.nr_specs; s++)
		for (int k = 0; k < ra.specs[s].instances; k++) {
			struct rt_thread *th = &ra.threads[ra.nr_threads++];

			th->spec = &ra.specs[s];
			th->inst = k;
			th->last_cpu = -1;
		}
	setup_timers();
	ra.log_max = (int)log_max;
	__atomic_store_n(&ra.stop, false, __ATOMIC_RELEASE);
	kprintf("rtapp: run tasks=%d specs=%d duration_ms=%ld calibration_loops_per_ms=%llu\n", ra.nr_threads,
		ra.nr_specs, ms, (unsigned long long)ra.loops_per_ms);
	energy_take_snapshot(&from);
	ra.t_zero = arch_now_ns() + RTAPP_START_LEAD_NS;
	ra.end_ns = ms ? ra.t_zero + (uint64_t)ms * NSEC_PER_MSEC : UINT64_MAX;
	for (; created < ra.nr_threads; created++) {
		struct rt_thread *th = &ra.threads[created];
		char name[TASK_NAME_LEN];

		ksnprintf(name, sizeof(name), "%s-%d", th->spec->name, th->inst);
		th->task = task_create(name, rt_thread_fn, th, th->spec->nice,
				       th->spec->mask ? th->spec->mask : all_cpus());
		if (!th->task) {
			kprintf("error: rtapp: no task slot for %s\n", name);
			__atomic_store_n(&ra.stop, true, __ATOMIC_RELEASE);
			break;
		}
		th->tid = th->task->tid;
	}
	if (ms && created == ra.nr_threads) {
		task_sleep_until(ra.end_ns);
		__atomic_store_n(&ra.stop, true, __ATOMIC_RELEASE);
	}
	for (int t = 0; t < created; t++)
		task_join(ra.threads[t].task);
	t_end = arch_now_ns();
	if (created < ra.nr_threads)
		return 1;
	for (int t = 0; t < ra.nr_threads; t++)
		print_thread(&ra.threads[t]);
	for (int t = 0; t < ra.nr_threads; t++)
		print_log(&ra.threads[t]);
	print_summary(t_end > ra.t_zero ? t_end - ra.t_zero : 0, &from);
	return 0;
}

/* ------------------------------------------------------------ list, command */

static void rt_list(void)
{
	for (int s = 0; s < ra.nr_specs; s++) {
		const struct rt_spec *sp = &ra.specs[s];
		char buf[SHELL_LINE_MAX];
		size_t n = 0;

#define PUT(...) (n += (size_t)ksnprintf(buf + (n < sizeof(buf) ? n : sizeof(buf)), \
					 n < sizeof(buf) ? sizeof(buf) - n : 0, __VA_ARGS__))
		PUT("rtapp add %s i=%d l=%ld n=%d", sp->name, sp->instances, (long)sp->loop, sp->nice);
		if (sp->mask)
			PUT(" m=0x%x", (unsigned)sp->mask);
		if (sp->delay_us)
			PUT(" d=%u", (unsigned)sp->delay_us);
		for (int p = 0; p < sp->nr_phases; p++) {
			const struct rt_phase *ph = &sp->ph[p];
			const char *sep = " ";

			if (ph->loop != 1) {
				PUT("%sx%ld", sep, (long)ph->loop);
				sep = ",";
			}
			if (ph->mask) {
				PUT("%sm0x%x", sep, (unsigned)ph->mask);
				sep = ",";
			}
			if (ph->nice != NICE_KEEP) {
				PUT("%sn%d", sep, ph->nice);
				sep = ",";
			}
			for (int e = 0; e < ph->nr_events; e++, sep = ",") {
				const struct rt_event *ev = &ph->ev[e];

				if (ev->type == EV_TIMER)
					PUT("%s%c%u:%c%u", sep, ev->absolute ? 'T' : 't', (unsigned)ev->us,
					    ev->unique ? 'u' : 'g', (unsigned)ev->timer);
				else
					PUT("%s%c%u", sep, "rRs"[ev->type], (unsigned)ev->us);
			}
		}
#undef PUT
		kprintf("%s\n", buf);
	}
	kprintf("rtapp: %d specs, %d instances\n", ra.nr_specs, total_instances());
}

static bool rt_claim(void)
{
	unsigned long flags = spin_lock_irqsave(&ra.lock);
	bool ok = !ra.busy;

	ra.busy = true;
	spin_unlock_irqrestore(&ra.lock, flags);
	if (!ok)
		kprintf("error: rtapp: a run is in progress\n");
	return ok;
}

static void rt_release(void)
{
	unsigned long flags = spin_lock_irqsave(&ra.lock);

	ra.busy = false;
	spin_unlock_irqrestore(&ra.lock, flags);
}

static int cmd_rtapp(int argc, char **argv)
{
	const char *sub = argc > 1 ? argv[1] : "";
	int rc = 0;

	if (strcmp(sub, "cal") == 0 && argc == 2) {
		uint64_t ps = ra.loops_per_ms ? 1000000000ull / ra.loops_per_ms : 0;	/* ps per loop */

		kprintf("rtapp: calibration loops_per_ms=%llu ns_per_loop=%llu.%03llu (cpu0, at boot)\n",
			(unsigned long long)ra.loops_per_ms, (unsigned long long)(ps / 1000),
			(unsigned long long)(ps % 1000));
		return 0;
	}
	if (strcmp(sub, "add") != 0 && strcmp(sub, "run") != 0 &&
	    !((strcmp(sub, "list") == 0 || strcmp(sub, "clear") == 0) && argc == 2)) {
		kprintf("error: rtapp: usage: rtapp add NAME [opts] PHASE... | run <ms> [log=N] | list | clear | cal\n");
		return 1;
	}
	if (!rt_claim())
		return 1;
	if (strcmp(sub, "add") == 0) {
		rc = rt_add(argc - 2, argv + 2);
	} else if (strcmp(sub, "run") == 0) {
		rc = rt_run(argc - 2, argv + 2);
	} else if (strcmp(sub, "list") == 0) {
		rt_list();
	} else {
		ra.nr_specs = 0;
		kprintf("rtapp: specs cleared\n");
	}
	rt_release();
	return rc;
}

static const struct shell_cmd rtapp_cmd = {
	"rtapp", "add|run|list|clear|cal ...", "rt-app workloads (tools/rtapp translates JSON)", cmd_rtapp
};

void rtapp_commands_register(void)
{
	rt_calibrate();
	shell_register(&rtapp_cmd);
}
