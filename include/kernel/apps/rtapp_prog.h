/*
 * An rt-app workload as data: task specs, each a list of phases, each a
 * list of events (steps), with the resources (mutexes, conditions,
 * barriers, semaphores, timers) named by small numbers. The kernel's
 * `rtapp` command builds one from console lines (kernel/apps/rtapp_prog.c
 * parses them, kernel/apps/rtapp.c interprets it with real tasks); another
 * engine (the simulator) can interpret the same program. tools/rtapp
 * translates rt-app's JSON into these lines.
 *
 * Console grammar (one command per line, at most 255 characters, 16 words):
 *   rtapp add NAME [i=N] [l=LOOP] [n=NICE] [p=POLICY] [m=HEXMASK] [d=DELAY_US] [PHASE|+ITEMS ...]
 *   rtapp phase NAME PHASE|+ITEMS ...	append to NAME, the last spec added
 * The task's scheduling: p=o (SCHED_OTHER, the default) at nice n= (-20..19,
 * default 0), p=f<prio> (SCHED_FIFO) or p=r<prio> (SCHED_RR), prio 1..99;
 * each instance is created with it (whatever policy the `rtapp run` caller
 * has, as rt-app sets every thread's own).
 * A PHASE word starts a new phase; a word starting with '+' appends its
 * items to the last phase (so a phase can have any number of events).
 * Items, comma-separated, events in execution order:
 *   x<loop> m<hexmask>			phase loop (-1 or >= 1), affinity
 *   n<nice> pf<prio> pr<prio>		the phase's scheduling, from the phase on (rt-app's
 *					policy/priority of a phase): SCHED_OTHER at that nice
 *					(from an RT policy too), SCHED_FIFO or SCHED_RR at prio
 *					1..99; the last of them in a phase counts; none: unchanged
 *   r<us> R<us> s<us>			run (fixed work), runtime (wall time), sleep
 *   t<us>:g<k> t<us>:u<k> (T: absolute)	timer k, shared or per instance
 *   l<k> u<k>				lock / unlock mutex k
 *   w<c>:<k> y<c>:<k>			wait on condition c with mutex k / sync (signal c, then wait)
 *   g<c> G<c>				signal (one waiter) / broadcast condition c
 *   b<k>				barrier k (parties: every instance naming it, once per use)
 *   P<k> V<k>				semaphore k: wait (down) / post (up)
 *   Y					yield
 *   f<s>				fork: start one more instance of spec number s
 *   kw<bytes> kr<bytes> kc<hops> i<bytes>	memory write / read / pointer chase, I/O write
 */
#ifndef KERNEL_RTAPP_PROG_H
#define KERNEL_RTAPP_PROG_H

#include <stdbool.h>
#include <stdint.h>

#define RTAPP_MAX_SPECS 32
#define RTAPP_MAX_PHASES 512		/* all specs together */
#define RTAPP_MAX_EVENTS 4096		/* all phases together */
#define RTAPP_MAX_TIMERS 16		/* shared ones; and per instance */
#define RTAPP_MAX_MUTEXES 32
#define RTAPP_MAX_CONDS 32
#define RTAPP_MAX_BARRIERS 16
#define RTAPP_MAX_SEMS 16
#define RTAPP_MAX_US 100000000L		/* one event: 100 s */
#define RTAPP_MAX_BYTES 100000000L	/* one memory/I/O event */
#define RTAPP_MAX_THREADS 64		/* instances and forks of one run */
#define RTAPP_NAME_LEN 12		/* 11 characters; the task is NAME-<inst> */
#define RTAPP_NICE_KEEP 127		/* a phase's nice when its policy is not SCHED_OTHER */
#define RTAPP_POLICY_KEEP (-1)		/* a phase that leaves the scheduling as it is */

enum rt_ev_type {
	EV_RUN, EV_RUNTIME, EV_SLEEP, EV_TIMER,
	EV_LOCK, EV_UNLOCK, EV_WAIT, EV_SYNC, EV_SIGNAL, EV_BROAD,
	EV_BARRIER, EV_SEM_WAIT, EV_SEM_POST, EV_YIELD, EV_FORK,
	EV_MEM_WRITE, EV_MEM_READ, EV_MEM_CHASE, EV_IORUN,
	EV_NR_TYPES
};

#define EVF_UNIQUE 1u		/* timer: per instance */
#define EVF_ABSOLUTE 2u		/* timer: absolute mode */

struct rt_event {
	uint8_t type;		/* enum rt_ev_type */
	uint8_t flags;		/* EVF_* */
	uint8_t res;		/* timer, mutex, condition, barrier, semaphore or spec number */
	uint8_t res2;		/* the mutex of wait/sync */
	uint32_t arg;		/* us, bytes or hops */
};

/*
 * Scheduling (a spec's, or a phase's change): policy SCHED_OTHER at nice, or
 * SCHED_FIFO / SCHED_RR at rt_prio (include/kernel/sched/class.h's numbers).
 * Fields are sized so that the structs have no padding (tests compare them
 * with memcmp).
 */
struct rt_phase {
	int32_t loop;		/* -1 or >= 1 */
	uint32_t mask;		/* 0: the task's */
	int nice;		/* policy SCHED_OTHER: -20..19; else RTAPP_NICE_KEEP */
	int16_t policy;		/* RTAPP_POLICY_KEEP: unchanged; SCHED_OTHER, SCHED_FIFO or SCHED_RR */
	int16_t rt_prio;	/* SCHED_FIFO / SCHED_RR: 1..99; else 0 */
	uint16_t first, nr_events;	/* in rt_prog.ev */
};

struct rt_spec {
	char name[RTAPP_NAME_LEN];
	int instances;
	int32_t loop;		/* -1: forever */
	int nice;		/* -20..19 */
	uint32_t mask;		/* 0: every CPU */
	uint32_t delay_us;
	int16_t policy;		/* SCHED_OTHER (default), SCHED_FIFO or SCHED_RR */
	int16_t rt_prio;	/* SCHED_FIFO / SCHED_RR: 1..99; else 0 */
	uint16_t first, nr_phases;	/* in rt_prog.ph */
};

struct rt_prog {
	int nr_specs, nr_phases, nr_events;
	struct rt_spec spec[RTAPP_MAX_SPECS];
	struct rt_phase ph[RTAPP_MAX_PHASES];
	struct rt_event ev[RTAPP_MAX_EVENTS];
};

/* Forget every spec. */
void rtprog_clear(struct rt_prog *p);
/*
 * `rtapp add` / `rtapp phase` with their arguments after the subcommand;
 * @cpus: the CPUs a mask may name. 0 on success; else one `error: rtapp:`
 * line is printed and @p is left as it was.
 */
int rtprog_add(struct rt_prog *p, int argc, char **argv, uint32_t cpus);
int rtprog_phase(struct rt_prog *p, int argc, char **argv, uint32_t cpus);
/* Checks before a run (every spec has phases, fork targets exist); 0 or an error line. */
int rtprog_check(const struct rt_prog *p);
/* The number of instances arriving at barrier @k in one round (rt-app's user count). */
uint32_t rtprog_barrier_parties(const struct rt_prog *p, int k);
/* Whether spec @s never ends by itself (loop -1 or a phase that loops forever). */
bool rtprog_spec_forever(const struct rt_prog *p, int s);
/* Configured run time and timer periods of one loop of phase @ph (us). */
void rtprog_phase_config(const struct rt_prog *p, const struct rt_phase *ph, uint64_t *c_run, uint64_t *c_period);
/*
 * The program back as console commands (`rtapp list`): `rtapp add` and `rtapp
 * phase` lines that rebuild it exactly, each within the shell's limits, then
 * one summary line "rtapp: N specs, ...", each passed to @out.
 */
void rtprog_list(const struct rt_prog *p, void (*out)(const char *line, void *ctx), void *ctx);

#endif
