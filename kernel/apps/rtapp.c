/*
 * rt-app workloads in the kernel: the `rtapp` console command, with the
 * semantics of scheduler-tools/rt-app (doc/tutorial.txt, src/rt-app.c).
 * tools/rtapp translates an rt-app JSON file into these commands; the
 * program they build is data (include/kernel/apps/rtapp_prog.h, parsed by
 * kernel/apps/rtapp_prog.c) that this file interprets with real tasks.
 *
 *   rtapp add NAME [i=N] [l=LOOP] [n=NICE] [p=POLICY] [m=MASK] [d=DELAY_US] [PHASE...]
 *   rtapp phase NAME PHASE|+ITEMS ...	more phases / events for the last spec
 *	one task spec (a JSON task object): i instances (default 1, 0 = only
 *	forked), l thread loop (default -1: until the run ends; 0: never
 *	runs), n nice (-20..19), p policy (o: SCHED_OTHER, the default;
 *	f<prio> / r<prio>: SCHED_FIFO / SCHED_RR at 1..99), m affinity as a hex
 *	CPU mask (default every CPU), d initial delay in us. Items: see
 *	include/kernel/apps/rtapp_prog.h; a phase's n<nice>, pf<prio> or
 *	pr<prio> changes the thread's scheduling when the phase starts, as
 *	rt-app's per-phase policy and priority do.
 *	e.g. rtapp add periodic i=4 r1600,t16000:u0; rtapp add rt p=f50 r100,t1000:u0
 *   rtapp run MS [log=N] [pi=0|1]
 *	create every instance, start them together (t_zero, 2 ms ahead), stop
 *	them MS ms later (0: when they all finish, at most 10 min; refused if
 *	one loops forever), join them and print, per instance and phase:
 *	  rtapp: task=NAME inst=I tid=T cpu=C phase=P loops=L period_us=
 *	  c_run_us= run_us= run_max_us= act_period_us= slack_us= slack_min_us=
 *	  wakeups= lat_min_us= lat_avg_us= lat_max_us= overruns=
 *	then, with log=N, the first N phase loops of each instance as rt-app's
 *	own log file (rt-app-NAME-I.log): a line `rtapp-log: file=NAME-I.log`
 *	then `rtapp-log: ` + rt-app's header and rows (#idx perf run period
 *	start end rel_st slack c_duration c_period wu_lat; idx = the thread's
 *	index, times in us), and one RESULT line with the energy fields.
 *   rtapp list		the program, as commands
 *   rtapp clear	forget it
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
 * Synchronisation events use the kernel's own sleeping objects, one set per
 * run: mutexes (kernel/sync/mutex.c: lock/unlock, owner checked), condition
 * variables (condvar.c: wait/signal/broad/sync; suspend and resume are
 * expressed with them by tools/rtapp, as rt-app does), barriers
 * (task_barrier.c; the parties are counted from the program as rt-app
 * counts its users) and semaphores (semaphore.c: sem_wait/sem_post). At the
 * end of a run every wait is abandoned (the stop flag, then a wake-up of
 * each thread) and each thread releases the mutexes it still holds. A
 * program error found at run time (unlocking a mutex one does not hold,
 * waiting without holding the mutex, locking one twice) ends that thread
 * with one `rtapp: error: ...` line; the others go on.
 *
 * mem/memrun/iorun are work on memory: writes, reads or a pointer chase
 * over the thread's own RTAPP_MEM_SLICE-byte buffer (rt-app's buffer is
 * bigger: the amount of work is kept, not the cache footprint); iorun
 * copies the bytes into a sink as a write to /dev/null would. yield is
 * task_yield(). fork starts one more instance of a spec, as rt-app's fork
 * event does (named NAME-f<k>), up to RTAPP_MAX_THREADS threads in all.
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
 * One run at a time; add/phase/clear/list are refused while a run is in progress.
 */
#include "kernel/apps/rtapp.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arch/cost.h"
#include "arch/spinlock.h"
#include "kernel/lib/cmdline.h"
#include "kernel/sync/condvar.h"
#include "kernel/sched/energy.h"
#include "kernel/lib/format.h"
#include "kernel/sync/mutex.h"
#include "kernel/lib/printk.h"
#include "kernel/apps/result.h"
#include "kernel/apps/rtapp_prog.h"
#include "kernel/sched/sched.h"
#include "kernel/sync/semaphore.h"
#include "kernel/console/shell.h"
#include "kernel/sync/task_barrier.h"
#include "kernel/time/time.h"
#include "kernel/time/timer.h"
#include "kernel/sched/topology.h"


#define RTAPP_MAX_MS 600000L		/* one run: 10 min */
#define RTAPP_LOG_MAX 64
#define RTAPP_MAX_STATS 4096		/* per-instance phase statistics, all threads */
#define RTAPP_MEM_SLICE 4096		/* bytes of memory work area per thread */
#define RTAPP_START_LEAD_NS (2 * NSEC_PER_MSEC)
#define RTAPP_CAL_LOOPS 200000u
#define RTAPP_CAL_TRIALS 3
#define RTAPP_RUN_CHUNK_US 1000u	/* a stop is seen within one chunk */
#define RTAPP_RUNTIME_POLL_US 32u

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

/* One phase loop, as rt-app logs it (us; perf in thousands of loops). */
struct rt_rec {
	uint16_t phase;
	uint32_t perf, run, period, wu_lat;
	uint64_t start, end, rel_st;
	int32_t slack;
	uint32_t c_duration, c_period;
};

struct rt_thread {
	struct task *task;
	int spec;
	int inst;			/* instance number, or fork number */
	bool forked, created, failed;
	uint32_t tid;
	int last_cpu;
	struct rt_timer timers[RTAPP_MAX_TIMERS];	/* unique timers */
	struct rt_pstat *st;		/* one per phase of its spec */
	int nrec;
	struct rt_rec rec[RTAPP_LOG_MAX];
};

/* Accumulated over one phase loop (rt-app's log_data). */
struct rt_ldata {
	uint64_t run_ns, wu_lat_ns, perf_loops;
	int64_t slack_ns;
	bool has_slack;
};

static struct {
	spinlock_t lock;		/* guards busy */
	bool busy;
	uint64_t loops_per_ms;		/* "run" calibration */
	struct rt_prog prog;
	/* The run in progress. */
	spinlock_t threads_lock;	/* guards nr_threads, nr_stats, fork numbers (forks add threads) */
	struct rt_timer timers[RTAPP_MAX_TIMERS];	/* shared timers */
	struct mutex mutexes[RTAPP_MAX_MUTEXES];
	struct condvar conds[RTAPP_MAX_CONDS];
	struct task_barrier barriers[RTAPP_MAX_BARRIERS];
	struct semaphore sems[RTAPP_MAX_SEMS];
	struct rt_thread threads[RTAPP_MAX_THREADS];
	struct rt_pstat stats[RTAPP_MAX_STATS];
	int nforks[RTAPP_MAX_SPECS];
	int nr_threads, nr_stats, log_max, nr_errors;
	bool pi;		/* mutexes inherit priority (rt-app's global pi_enabled) */
	uint64_t t_zero, end_ns;
	volatile bool stop;
} ra = { .lock = SPINLOCK_INIT, .threads_lock = SPINLOCK_INIT };

static uint8_t rt_mem[RTAPP_MAX_THREADS][RTAPP_MEM_SLICE] __attribute__((aligned(64)));
static uint8_t rt_io_sink[RTAPP_MEM_SLICE];

static uint32_t all_cpus(void)
{
	return sched_possible_mask();
}

static bool stopped(void)
{
	return __atomic_load_n(&ra.stop, __ATOMIC_ACQUIRE);
}

static int thread_index(const struct rt_thread *th)
{
	return (int)(th - ra.threads);
}

static const struct rt_spec *spec_of(const struct rt_thread *th)
{
	return &ra.prog.spec[th->spec];
}

static void rt_thread_fn(void *arg);

/*
 * A thread of spec @sp, created with the spec's policy (rt-app sets every
 * thread's own, so the caller's chrt does not leak into it): the caller's
 * spawn policy is set around task_create() and put back.
 */
static struct task *rt_task_create(const char *name, struct rt_thread *th, const struct rt_spec *sp)
{
	struct task *self = current_task(), *t;
	int saved_policy = self->spawn_policy, saved_prio = self->spawn_prio;

	if (task_set_spawn_policy(sp->policy, sp->rt_prio) != 0)
		return NULL;		/* not reached: rtapp_prog checked the values */
	t = task_create(name, rt_thread_fn, th, sp->nice, sp->mask ? sp->mask : all_cpus());
	task_set_spawn_policy(saved_policy, saved_prio);
	return t;
}

/*
 * A phase's scheduling change (rt-app's set_thread_param()): SCHED_OTHER at
 * its nice, or SCHED_FIFO / SCHED_RR at its priority; nothing is done where
 * the thread has it already.
 */
static void rt_apply_sched(struct task *self, const struct rt_phase *ph)
{
	if (ph->policy == RTAPP_POLICY_KEEP)
		return;
	if (ph->policy == SCHED_OTHER) {
		/* Back in the fair class first: the nice is then set as for any fair task. */
		if (self->policy != SCHED_OTHER)
			task_setscheduler(self, SCHED_OTHER, 0);
		if (ph->nice != self->se.nice)
			task_set_nice(self, ph->nice);
	} else if (self->policy != ph->policy || self->rt_priority != ph->rt_prio) {
		task_setscheduler(self, ph->policy, ph->rt_prio);
	}
}

/* ------------------------------------------------------------ work */

static volatile uint32_t rt_sink;	/* where memory work leaves its result */

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
static bool ev_run(uint32_t us, struct rt_ldata *ld)
{
	uint64_t loops = loops_for_us(us), chunk = loops_for_us(RTAPP_RUN_CHUNK_US);

	if (chunk == 0)
		chunk = 1;
	while (loops) {
		uint64_t n = loops < chunk ? loops : chunk;

		if (stopped())
			return false;
		rt_burn(n);
		ld->perf_loops += n;
		loops -= n;
	}
	return true;
}

/* runtime: busy until @us of wall time have passed. */
static bool ev_runtime(uint32_t us, struct rt_ldata *ld)
{
	uint64_t now = arch_now_ns(), until = now + (uint64_t)us * NSEC_PER_USEC;

	while (now < until) {
		uint64_t left_us = (until - now + NSEC_PER_USEC - 1) / NSEC_PER_USEC;
		uint64_t n = loops_for_us(left_us < RTAPP_RUNTIME_POLL_US ? left_us : RTAPP_RUNTIME_POLL_US);

		if (stopped() || now >= ra.end_ns)
			return false;
		rt_burn(n ? n : 1);
		ld->perf_loops += n ? n : 1;
		now = arch_now_ns();
	}
	return true;
}

/* Nothing: the memory loops below do the work; their cost is charged beside them. */
static uint64_t rt_nothing(uint64_t bytes)
{
	return bytes;
}

/* What @bytes (or hops) of memory work cost at capacity 1024: ~3 instructions each, as QEMU counts the loops. */
static uint64_t rt_mem_cost_ns(uint64_t bytes)
{
	return bytes * 3;
}

/* mem / memrun write, read, chase; iorun: @n bytes (or hops) over the thread's slice. */
static bool ev_mem(struct rt_thread *th, uint8_t type, uint32_t n)
{
	volatile uint8_t *buf = rt_mem[thread_index(th)];
	uint32_t done = 0, sum = 0;

	if (type == EV_MEM_CHASE && buf[0] == 0 && buf[1] == 0) {
		/* A cycle through every 64-byte line, in a scattered order (stride 37 lines, coprime to 64). */
		for (uint32_t i = 0; i < RTAPP_MEM_SLICE / 64; i++)
			((volatile uint16_t *)buf)[i * 32] = (uint16_t)(((i + 37) % (RTAPP_MEM_SLICE / 64)) * 64);
	}
	while (done < n) {
		uint32_t chunk = n - done;

		if (chunk > RTAPP_MEM_SLICE)
			chunk = RTAPP_MEM_SLICE;

		if (stopped())
			return false;
		if (type == EV_MEM_WRITE) {
			for (uint32_t i = 0; i < chunk; i++)
				buf[i] = (uint8_t)(i + done);
		} else if (type == EV_MEM_READ) {
			for (uint32_t i = 0; i < chunk; i++)
				sum += buf[i];
		} else if (type == EV_MEM_CHASE) {
			uint32_t at = 0;

			for (uint32_t i = 0; i < chunk; i++)
				at = ((volatile uint16_t *)buf)[at / 2];
			sum += at;
		} else {
			for (uint32_t i = 0; i < chunk; i++)
				((volatile uint8_t *)rt_io_sink)[i] = buf[i];
		}
		/* The loops took real time on a CPU; a port that models time charges it here. */
		(void)arch_work(rt_nothing, rt_mem_cost_ns, chunk);
		done += chunk;
	}
	rt_sink = sum;
	return true;
}

static bool ev_timer(struct rt_thread *th, const struct rt_event *ev, uint64_t t_first,
		     struct rt_pstat *st, struct rt_ldata *ld)
{
	struct rt_timer *tm = (ev->flags & EVF_UNIQUE) ? &th->timers[ev->res] : &ra.timers[ev->res];
	uint64_t next, now, lat;
	unsigned long flags;
	bool overrun;

	flags = spin_lock_irqsave(&tm->lock);
	if (!tm->init) {
		tm->init = true;
		tm->next = t_first;
	}
	tm->next += (uint64_t)ev->arg * NSEC_PER_USEC;
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

/* A program error found while running: one line, and the thread ends. */
static bool rt_fail(struct rt_thread *th, int phase, int e, const char *what, const char *obj, unsigned a,
		    const char *rest)
{
	char msg[96];

	ksnprintf(msg, sizeof(msg), "%s %s %u%s", what, obj, a, rest);
	kprintf("rtapp: error: task=%s inst=%d phase=%d event=%d: %s\n", spec_of(th)->name, th->inst, phase, e,
		msg);
	th->failed = true;
	__atomic_fetch_add(&ra.nr_errors, 1, __ATOMIC_RELAXED);
	return false;
}

/* The fork event: one more instance of spec @s, starting now. */
static bool ev_fork(struct rt_thread *th, int s, int phase, int e)
{
	unsigned long flags = spin_lock_irqsave(&ra.threads_lock);
	const struct rt_spec *sp = &ra.prog.spec[s];
	struct rt_thread *child;
	char name[TASK_NAME_LEN];
	int idx, fk;

	if (ra.nr_threads == RTAPP_MAX_THREADS || ra.nr_stats + sp->nr_phases > RTAPP_MAX_STATS) {
		spin_unlock_irqrestore(&ra.threads_lock, flags);
		return rt_fail(th, phase, e, "fork of", "spec", (unsigned)s, ": the run has its maximum of threads");
	}
	idx = ra.nr_threads++;
	fk = ra.nforks[s]++;
	child = &ra.threads[idx];
	memset(child, 0, sizeof(*child));
	child->spec = s;
	child->inst = fk;
	child->forked = true;
	child->last_cpu = -1;
	child->st = &ra.stats[ra.nr_stats];
	ra.nr_stats += sp->nr_phases;
	spin_unlock_irqrestore(&ra.threads_lock, flags);
	for (int k = 0; k < RTAPP_MAX_TIMERS; k++)
		child->timers[k].relative = true;
	ksnprintf(name, sizeof(name), "%s-f%d", sp->name, fk);
	child->task = rt_task_create(name, child, sp);
	if (child->task)
		child->tid = child->task->tid;
	__atomic_store_n(&child->created, true, __ATOMIC_RELEASE);
	if (!child->task)
		return rt_fail(th, phase, e, "fork of", "spec", (unsigned)s, ": no task slot");
	return true;
}

static bool ev_sync_objects(struct rt_thread *th, const struct rt_event *ev, int phase, int e)
{
	enum mutex_result r;

	switch (ev->type) {
	case EV_LOCK:
		r = mutex_lock_stoppable(&ra.mutexes[ev->res], &ra.stop);
		if (r == MUTEX_DEADLOCK)
			return rt_fail(th, phase, e, "lock of", "mutex", ev->res, ", which it holds already");
		return r == MUTEX_OK;
	case EV_UNLOCK:
		if (mutex_unlock_check(&ra.mutexes[ev->res]) != MUTEX_OK)
			return rt_fail(th, phase, e, "unlock of", "mutex", ev->res, ", which it does not hold");
		return true;
	case EV_SYNC:
		cond_signal(&ra.conds[ev->res]);
		/* fall through */
	case EV_WAIT:
		r = cond_wait(&ra.conds[ev->res], &ra.mutexes[ev->res2], &ra.stop);
		if (r == MUTEX_NOT_OWNER)
			return rt_fail(th, phase, e, "wait on", "condition", ev->res, " without holding its mutex");
		return r == MUTEX_OK;
	case EV_SIGNAL:
		cond_signal(&ra.conds[ev->res]);
		return true;
	case EV_BROAD:
		cond_broadcast(&ra.conds[ev->res]);
		return true;
	case EV_BARRIER:
		return task_barrier_wait(&ra.barriers[ev->res], &ra.stop) != BARRIER_STOPPED;
	case EV_SEM_WAIT:
		return sem_down(&ra.sems[ev->res], &ra.stop);
	default:	/* EV_SEM_POST */
		sem_up(&ra.sems[ev->res]);
		return true;
	}
}

/* One loop of phase @p; false if the run ended (or the thread failed) during it: the loop is then not counted. */
static bool rt_run_phase(struct rt_thread *th, int p, uint64_t t_first, struct rt_pstat *st, struct rt_ldata *ld)
{
	const struct rt_phase *ph = &ra.prog.ph[spec_of(th)->first + p];

	for (int i = 0; i < ph->nr_events; i++) {
		const struct rt_event *ev = &ra.prog.ev[ph->first + i];
		uint64_t t;
		bool ok;

		if (stopped())
			return false;
		switch (ev->type) {
		case EV_RUN:
		case EV_RUNTIME:
			t = arch_now_ns();
			ok = ev->type == EV_RUN ? ev_run(ev->arg, ld) : ev_runtime(ev->arg, ld);
			ld->run_ns += arch_now_ns() - t;
			break;
		case EV_SLEEP:
			ok = rt_sleep_until(arch_now_ns() + (uint64_t)ev->arg * NSEC_PER_USEC);
			break;
		case EV_TIMER:
			ok = ev_timer(th, ev, t_first, st, ld);
			break;
		case EV_YIELD:
			task_yield();
			ok = true;
			break;
		case EV_FORK:
			ok = ev_fork(th, ev->res, p, i);
			break;
		case EV_MEM_WRITE:
		case EV_MEM_READ:
		case EV_MEM_CHASE:
		case EV_IORUN:
			ok = ev_mem(th, ev->type, ev->arg);
			break;
		default:
			ok = ev_sync_objects(th, ev, p, i);
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
		uint64_t c_run, c_period;

		rtprog_phase_config(&ra.prog, &ra.prog.ph[spec_of(th)->first + phase], &c_run, &c_period);
		r->phase = (uint16_t)phase;
		r->perf = (uint32_t)(ld->perf_loops / 1000);
		r->run = us32(ld->run_ns);
		r->period = us32(t1 - t0);
		r->start = t0 / NSEC_PER_USEC;
		r->end = t1 / NSEC_PER_USEC;
		r->rel_st = t0 > ra.t_zero ? (t0 - ra.t_zero) / NSEC_PER_USEC : 0;
		r->slack = (int32_t)(ld->slack_ns / (int64_t)NSEC_PER_USEC);
		r->wu_lat = us32(ld->wu_lat_ns);
		r->c_duration = (uint32_t)c_run;
		r->c_period = (uint32_t)c_period;
	}
}

/* At the end of a thread: give back the mutexes it still holds (the run ended inside a critical section). */
static void rt_release_mutexes(void)
{
	struct task *self = current_task();

	for (int k = 0; k < RTAPP_MAX_MUTEXES; k++)
		if (mutex_owner(&ra.mutexes[k]) == self)
			mutex_unlock(&ra.mutexes[k]);
}

static void rt_thread_fn(void *arg)
{
	struct rt_thread *th = arg;
	const struct rt_spec *sp = spec_of(th);
	struct task *self = current_task();
	uint32_t task_mask = sp->mask ? sp->mask : all_cpus(), cur_mask = task_mask;
	uint64_t t_first = ra.t_zero + (uint64_t)sp->delay_us * NSEC_PER_USEC;

	/* rt-app's start barrier, then the task's delay (a forked thread shares t_zero, as in rt-app). */
	if (rt_sleep_until(t_first)) {
		int32_t ploop = 0, tloop = 0;
		int phase = 0;

		while (!stopped() && tloop != sp->loop) {
			const struct rt_phase *ph = &ra.prog.ph[sp->first + phase];
			uint32_t mask = ph->mask ? ph->mask : task_mask;
			struct rt_ldata ld;
			uint64_t t0, t1;

			if (mask != cur_mask) {
				task_set_affinity(self, mask);
				cur_mask = mask;
				task_yield();	/* move now if this CPU is no longer allowed */
			}
			rt_apply_sched(self, ph);
			memset(&ld, 0, sizeof(ld));
			t0 = arch_now_ns();
			if (!rt_run_phase(th, phase, t_first, &th->st[phase], &ld))
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
	rt_release_mutexes();
	th->last_cpu = self->cpu;
}

/* ------------------------------------------------------------ run */

static void phase_config(const struct rt_phase *ph, uint64_t *c_run, uint64_t *c_period)
{
	rtprog_phase_config(&ra.prog, ph, c_run, c_period);
}

/* The run's objects, fresh: timers (a timer is absolute if any use of it is: rt-app sets it per resource), locks. */
static void setup_objects(void)
{
	const struct rt_prog *p = &ra.prog;

	memset(ra.timers, 0, sizeof(ra.timers));
	for (int k = 0; k < RTAPP_MAX_TIMERS; k++)
		ra.timers[k].relative = true;
	for (int k = 0; k < RTAPP_MAX_MUTEXES; k++) {
		mutex_init(&ra.mutexes[k]);
		ra.mutexes[k].prio_none = !ra.pi;
	}
	for (int k = 0; k < RTAPP_MAX_CONDS; k++)
		condvar_init(&ra.conds[k]);
	for (int k = 0; k < RTAPP_MAX_BARRIERS; k++) {
		uint32_t n = rtprog_barrier_parties(p, k);

		task_barrier_init(&ra.barriers[k], n ? n : 1);
	}
	for (int k = 0; k < RTAPP_MAX_SEMS; k++)
		semaphore_init(&ra.sems[k], 0);
	for (int e = 0; e < p->nr_events; e++) {
		const struct rt_event *ev = &p->ev[e];

		if (ev->type == EV_TIMER && (ev->flags & EVF_ABSOLUTE) && !(ev->flags & EVF_UNIQUE))
			ra.timers[ev->res].relative = false;
	}
}

/* Unique timers: absolute if the thread's spec uses them so. */
static void setup_thread_timers(struct rt_thread *th)
{
	const struct rt_spec *sp = spec_of(th);

	for (int k = 0; k < RTAPP_MAX_TIMERS; k++)
		th->timers[k].relative = true;
	for (int i = 0; i < sp->nr_phases; i++) {
		const struct rt_phase *ph = &ra.prog.ph[sp->first + i];

		for (int e = 0; e < ph->nr_events; e++) {
			const struct rt_event *ev = &ra.prog.ev[ph->first + e];

			if (ev->type == EV_TIMER && (ev->flags & EVF_ABSOLUTE) && (ev->flags & EVF_UNIQUE))
				th->timers[ev->res].relative = false;
		}
	}
}

static void print_thread(const struct rt_thread *th)
{
	const struct rt_spec *sp = spec_of(th);
	char inst[16];

	ksnprintf(inst, sizeof(inst), th->forked ? "f%d" : "%d", th->inst);
	for (int p = 0; p < sp->nr_phases; p++) {
		const struct rt_pstat *st = &th->st[p];
		uint64_t c_run, c_period, n = st->loops ? st->loops : 1;

		phase_config(&ra.prog.ph[sp->first + p], &c_run, &c_period);
		kprintf("rtapp: task=%s inst=%s tid=%u cpu=%d phase=%d loops=%u period_us=%llu c_run_us=%llu "
			"run_us=%llu run_max_us=%llu act_period_us=%llu slack_us=%lld slack_min_us=%lld "
			"wakeups=%u lat_min_us=%llu lat_avg_us=%llu lat_max_us=%llu overruns=%u\n",
			sp->name, inst, (unsigned)th->tid, th->last_cpu, p, (unsigned)st->loops,
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

/* rt-app's log file of one thread (src/rt-app_utils.c log_timing's columns), prefixed for the console. */
static void print_log(const struct rt_thread *th)
{
	const struct rt_spec *sp = spec_of(th);

	if (th->forked)
		kprintf("rtapp-log: file=%s-f%d.log\n", sp->name, th->inst);
	else
		kprintf("rtapp-log: file=%s-%d.log\n", sp->name, th->inst);
	kprintf("rtapp-log: %s %8s %8s %8s %15s %15s %15s %10s %10s %10s %10s\n", "#idx", "perf", "run", "period",
		"start", "end", "rel_st", "slack", "c_duration", "c_period", "wu_lat");
	for (int i = 0; i < th->nrec; i++) {
		const struct rt_rec *r = &th->rec[i];

		kprintf("rtapp-log: %4d %8lu %8lu %8lu %15llu %15llu %15llu %10ld %10lu %10lu %10lu\n",
			thread_index(th), (unsigned long)r->perf, (unsigned long)r->run, (unsigned long)r->period,
			(unsigned long long)r->start, (unsigned long long)r->end, (unsigned long long)r->rel_st,
			(long)r->slack, (unsigned long)r->c_duration, (unsigned long)r->c_period,
			(unsigned long)r->wu_lat);
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
		for (int p = 0; p < spec_of(&ra.threads[t])->nr_phases; p++) {
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
		  "slack_min_us=%lld lat_avg_us=%llu lat_max_us=%llu", ra.nr_threads, ra.prog.nr_specs,
		  (unsigned long long)(elapsed_ns / NSEC_PER_USEC), (unsigned long long)loops,
		  (unsigned long long)overruns, (long long)(slack_min / (int64_t)NSEC_PER_USEC),
		  (unsigned long long)(nlat ? lat_sum / nlat / NSEC_PER_USEC : 0),
		  (unsigned long long)(lat_max / NSEC_PER_USEC));
	rt_print_result(fields, from);
}

/* Whether spec @s can run in this program: instances, or a fork of it somewhere. */
static bool spec_runs(int s)
{
	if (ra.prog.spec[s].instances > 0)
		return true;
	for (int e = 0; e < ra.prog.nr_events; e++)
		if (ra.prog.ev[e].type == EV_FORK && ra.prog.ev[e].res == s)
			return true;
	return false;
}

/* End the run: every wait is abandoned (the objects' stop flag), every thread woken to see it. */
static void rt_stop_all(void)
{
	int n;

	__atomic_store_n(&ra.stop, true, __ATOMIC_RELEASE);
	n = __atomic_load_n(&ra.nr_threads, __ATOMIC_ACQUIRE);
	for (int t = 0; t < n; t++)
		if (__atomic_load_n(&ra.threads[t].created, __ATOMIC_ACQUIRE) && ra.threads[t].task)
			wake_up(ra.threads[t].task);
}

static int rt_run(int argc, char **argv)
{
	static struct energy_snapshot from;	/* under ra.busy */
	long ms, log_max = 0, pi = 0;
	int created = 0, initial = 0;
	uint64_t t_end;

	if (argc < 1 || !cmdline_parse_long(argv[0], 0, RTAPP_MAX_MS, &ms)) {
		kprintf("error: rtapp: usage: rtapp run <ms 0..%ld> [log=N] [pi=0|1]\n", RTAPP_MAX_MS);
		return 1;
	}
	for (int i = 1; i < argc; i++) {
		bool ok = strncmp(argv[i], "log=", 4) == 0 ? cmdline_parse_long(argv[i] + 4, 0, RTAPP_LOG_MAX, &log_max)
			  : strncmp(argv[i], "pi=", 3) == 0 ? cmdline_parse_long(argv[i] + 3, 0, 1, &pi)
							     : false;

		if (!ok) {
			kprintf("error: rtapp: run: bad option '%s' (log=0..%d, pi=0|1)\n", argv[i], RTAPP_LOG_MAX);
			return 1;
		}
	}
	if (rtprog_check(&ra.prog))
		return 1;
	for (int s = 0; s < ra.prog.nr_specs; s++) {
		if (ms == 0 && spec_runs(s) && rtprog_spec_forever(&ra.prog, s)) {
			kprintf("error: rtapp: task '%s' loops forever: give the run a duration\n", ra.prog.spec[s].name);
			return 1;
		}
		initial += ra.prog.spec[s].instances;
	}
	if (initial > RTAPP_MAX_THREADS) {
		kprintf("error: rtapp: too many instances (%d, max %d in all)\n", initial, RTAPP_MAX_THREADS);
		return 1;
	}
	memset(ra.threads, 0, sizeof(ra.threads));
	memset(ra.stats, 0, sizeof(ra.stats));
	memset(ra.nforks, 0, sizeof(ra.nforks));
	memset(rt_mem, 0, sizeof(rt_mem));
	ra.nr_threads = ra.nr_stats = ra.nr_errors = 0;
	for (int s = 0; s < ra.prog.nr_specs; s++)
		for (int k = 0; k < ra.prog.spec[s].instances; k++) {
			struct rt_thread *th = &ra.threads[ra.nr_threads++];

			if (ra.nr_stats + ra.prog.spec[s].nr_phases > RTAPP_MAX_STATS) {
				kprintf("error: rtapp: more than %d instance phases in all\n", RTAPP_MAX_STATS);
				return 1;
			}
			th->spec = s;
			th->inst = k;
			th->last_cpu = -1;
			th->st = &ra.stats[ra.nr_stats];
			ra.nr_stats += ra.prog.spec[s].nr_phases;
			setup_thread_timers(th);
		}
	ra.pi = pi != 0;
	setup_objects();
	ra.log_max = (int)log_max;
	__atomic_store_n(&ra.stop, false, __ATOMIC_RELEASE);
	kprintf("rtapp: run tasks=%d specs=%d duration_ms=%ld calibration_loops_per_ms=%llu pi=%d\n", ra.nr_threads,
		ra.prog.nr_specs, ms, (unsigned long long)ra.loops_per_ms, ra.pi);
	energy_take_snapshot(&from);
	ra.t_zero = arch_now_ns() + RTAPP_START_LEAD_NS;
	ra.end_ns = ra.t_zero + (uint64_t)(ms ? ms : RTAPP_MAX_MS) * NSEC_PER_MSEC;
	for (; created < initial; created++) {
		struct rt_thread *th = &ra.threads[created];
		const struct rt_spec *sp = spec_of(th);
		char name[TASK_NAME_LEN];

		ksnprintf(name, sizeof(name), "%s-%d", sp->name, th->inst);
		th->task = rt_task_create(name, th, sp);
		if (!th->task) {
			kprintf("error: rtapp: no task slot for %s\n", name);
			break;
		}
		th->tid = th->task->tid;
		__atomic_store_n(&th->created, true, __ATOMIC_RELEASE);
	}
	if (created < initial)
		rt_stop_all();
	else if (ms)
		task_sleep_until(ra.end_ns);
	/* Join every thread, forked ones included (their number grows until the last forker ends). */
	for (int t = 0;; t++) {
		struct rt_thread *th;

		if (t == __atomic_load_n(&ra.nr_threads, __ATOMIC_ACQUIRE))
			break;
		th = &ra.threads[t];
		if (t >= initial)
			while (!__atomic_load_n(&th->created, __ATOMIC_ACQUIRE))
				task_sleep_ns(100 * NSEC_PER_USEC);
		else if (t >= created)
			continue;
		if (!th->task)
			continue;
		if (t == 0 && ms) {
			/* The run's end: stop everyone before waiting for anyone. */
			rt_stop_all();
		} else if (!ms) {
			/* Until every task ends, but no longer than the cap: a thread may wait for nobody. */
			while (READ_ONCE(th->task->state) != TASK_EXITED && arch_now_ns() < ra.end_ns)
				task_sleep_ns(10 * NSEC_PER_MSEC);
			if (arch_now_ns() >= ra.end_ns)
				rt_stop_all();
		}
		task_join(th->task);
		th->task = NULL;
	}
	rt_stop_all();
	t_end = arch_now_ns();
	if (created < initial)
		return 1;
	for (int t = 0; t < ra.nr_threads; t++)
		print_thread(&ra.threads[t]);
	for (int t = 0; t < ra.nr_threads; t++)
		if (ra.log_max)
			print_log(&ra.threads[t]);
	print_summary(t_end > ra.t_zero ? t_end - ra.t_zero : 0, &from);
	return ra.nr_errors ? 1 : 0;
}

/* ------------------------------------------------------------ command */

static void list_line(const char *line, void *ctx)
{
	(void)ctx;
	kprintf("%s\n", line);
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
	if (strcmp(sub, "add") != 0 && strcmp(sub, "phase") != 0 && strcmp(sub, "run") != 0 &&
	    !((strcmp(sub, "list") == 0 || strcmp(sub, "clear") == 0) && argc == 2)) {
		kprintf("error: rtapp: usage: rtapp add NAME [opts] PHASE... | phase NAME PHASE... | run <ms> [log=N] [pi=0|1] "
			"| list | clear | cal\n");
		return 1;
	}
	if (!rt_claim())
		return 1;
	if (strcmp(sub, "add") == 0) {
		rc = rtprog_add(&ra.prog, argc - 2, argv + 2, all_cpus());
	} else if (strcmp(sub, "phase") == 0) {
		rc = rtprog_phase(&ra.prog, argc - 2, argv + 2, all_cpus());
	} else if (strcmp(sub, "run") == 0) {
		rc = rt_run(argc - 2, argv + 2);
	} else if (strcmp(sub, "list") == 0) {
		rtprog_list(&ra.prog, list_line, NULL);
	} else {
		rtprog_clear(&ra.prog);
		kprintf("rtapp: specs cleared\n");
	}
	rt_release();
	return rc;
}

static const struct shell_cmd commands[] = {
	{ "rtapp", "add|phase|run|list|clear|cal ...", "rt-app workloads (tools/rtapp translates JSON)", cmd_rtapp },
};
/* Calibrated when registered: on the boot CPU, before the first prompt. */
SHELL_COMMANDS_INIT(commands, rt_calibrate);
