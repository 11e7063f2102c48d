/*
 * Tasks and per-CPU run queues.
 *
 * Every task is in exactly one place: running on a CPU (rq->curr), queued
 * on one run queue, sleeping (on no queue; maybe with a timer armed), or
 * exited (waiting to be joined). sched_check_invariants() asserts this.
 *
 * Locking: each rq has one lock, always taken with IRQs off. A task's
 * state, on_rq and cpu change only under the lock of the rq it belongs to
 * (task->cpu). Two rq locks are never held at once except in
 * double_rq_trylock(), which takes the lower CPU first. A context switch
 * happens with the rq lock held; the next task releases it
 * (sched_finish_switch), so a waker holding that lock never sees a task
 * half switched out. Remote wake-ups go through the target CPU's lock-free
 * wake list and an IPI; the target enqueues under its own lock.
 */
#ifndef KERNEL_SCHED_H
#define KERNEL_SCHED_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/spinlock.h"
#include "arch/barrier.h"
#include "kernel/lib/cpumask.h"
#include "kernel/sched/class.h"
#include "kernel/sched/fair.h"
#include "kernel/sched/rt.h"
#include "kernel/pack/pack.h"
#include "kernel/lib/panic.h"
#include "kernel/time/timer.h"

#include "arch/context.h"

#define TASK_NAME_LEN 16
#define TASK_HISTORY 8		/* scheduler events kept per task (debug kernels) */
/* Builds may size the pool (the simulator: more tasks, host-sized stacks). */
#ifndef CONFIG_TASK_STACK_SIZE
#define CONFIG_TASK_STACK_SIZE 8192
#endif
#define TASK_STACK_SIZE CONFIG_TASK_STACK_SIZE
#define TASK_GUARD_SIZE 4096	/* unmapped page below every task stack (ARM) */
#ifndef CONFIG_MAX_TASKS
#define CONFIG_MAX_TASKS 1024
#endif
#define MAX_TASKS CONFIG_MAX_TASKS

/* Exit codes of tasks killed by a fault (as the signals' numbers, negated). */
#define TASK_EXIT_SIGILL (-4)
#define TASK_EXIT_SIGSEGV (-11)

/* What a debug kernel's per-task history records (kernel/debug/report.c prints it). */
enum task_event_kind {
	TEV_NEW,		/* placed for the first time on cpu (arg: -) */
	TEV_WAKEUP,		/* woken by a task on cpu, for CPU arg */
	TEV_WAKE_LIST,		/* pushed by cpu onto CPU arg's wake list */
	TEV_ENQUEUE,		/* queued on cpu's rq (arg: ENQ_* flags) */
	TEV_MIGRATE,		/* moved to cpu's rq from CPU arg's */
	TEV_RUN,		/* switched in on cpu */
	TEV_OUT,		/* switched out on cpu (arg: its state) */
};

struct task_event {
	uint64_t ns;
	uint8_t kind;		/* enum task_event_kind */
	int8_t cpu;
	int8_t arg;
};

struct mutex;

enum task_state {
	TASK_FREE = 0,		/* slot unused */
	TASK_RUNNABLE,		/* on a run queue or running */
	TASK_SLEEPING,		/* blocked: off every queue */
	TASK_WAKING,		/* being moved to its wake-up CPU */
	TASK_EXITED,		/* finished, not yet joined */
};

struct task {
	struct arch_context ctx;	/* first: switch.S does not care, gdb does */
	struct sched_entity se;		/* fair class; its avg is the task's PELT, every class */
	const struct sched_class *sched_class;	/* from prio (and policy): under the rq lock */
	int policy;			/* SCHED_OTHER, SCHED_FIFO, SCHED_RR: what the user set */
	int rt_priority;		/* 1..99 for FIFO and RR, else 0: what the user set */
	int prio;			/* effective RT priority: max(rt_priority, pi_prio); 0: none */
	int pi_prio;			/* highest RT priority of the tasks waiting on its mutexes */
	struct mutex *blocked_on;	/* the mutex it sleeps on (PI chain) */
	struct mutex *pi_held;		/* mutexes it holds (their held_next): PI */
	uint32_t tid;			/* never reused */
	char name[TASK_NAME_LEN];
	volatile int state;		/* enum task_state */
	volatile int cpu;		/* rq the task belongs to */
	bool on_rq;			/* queued or running on task->cpu */
	bool is_idle;
	bool recheck_cpu;		/* affinity changed since placed, or a push asked: may have to leave p->cpu */
	bool detached;			/* freed at exit: nobody joins it */
#ifdef CONFIG_SCHED_DEBUG
	volatile bool on_cpu;		/* its stack is in use on some CPU (debug check, as Linux's on_cpu) */
	uint32_t wait_ticks_base;	/* (u32) ticks of the CPU it waits on when it began waiting there */
	uint32_t history_next;		/* history[history_next % TASK_HISTORY] is the oldest */
	struct task_event history[TASK_HISTORY];
#endif
	cpumask_t cpus_allowed;		/* affinity (online CPUs only) */
	cpumask_t spawn_cpus;		/* tasks it creates run only here (taskset); inherited */
	int spawn_policy, spawn_prio;	/* what the tasks it creates get (chrt); inherited */
	int nr_cpus_allowed;		/* its weight: 1 skips placement */
	void (*fn)(void *arg);
	void *arg;
	void *stack;
	int exit_code;
	struct task *joiner;		/* sleeping in task_join() */
	struct timer sleep_timer;
	struct task *wake_next;		/* wake-list link */
	int wake_flags;			/* ENQ_* for the wake-list enqueue */
	uint64_t wait_start_ns;		/* when last made runnable */
	/* Switches to it: an unsigned long as Linux's nvcsw (one add per switch on a 32-bit CPU). */
	unsigned long nr_switches;
	uint64_t nr_migrations, nr_wakeups;
	struct sched_rt_entity rt;	/* real-time class */
};

struct rq {
	spinlock_t lock;
	int cpu;
	unsigned int nr_running;	/* tasks here, every class, curr included; not the idle task */
	unsigned int class_nr[SCHED_MAX_CLASSES];	/* the same per class (idle's: always 1) */
	unsigned int nr_outside_fair;	/* of them, not in the fair class: 0 lets the switch take the fast path */
	uint8_t class_work;		/* bit per class: its balance() runs after the unlock */
	bool overloaded;		/* its bit in sched_overloaded (nr_running >= 2), kept beside: no shared read */
	struct cfs_rq cfs;
	struct sched_avg avg;		/* PELT of the whole rq (any task runnable/running) */
	bool avg_runnable, avg_running;	/* the state avg accrues in since its last update */
	uint32_t freq_scale;		/* its clock over its top OPP's, PELT_SCALE = top (cpufreq.h) */
	struct sched_avg avg_rt;	/* PELT of RT tasks running here (Linux's avg_rt) */
	bool avg_rt_running;
	struct timer rt_period_timer;	/* ends a throttled RT period */
	struct task *curr, *idle;
	volatile bool need_resched;
	uint64_t clock;			/* ns, updated under the lock */
	struct task *volatile wake_list;	/* lock-free LIFO of wakees */
	bool tick_stopped;
	bool has_deferred;		/* one of the deferred_* below is set */
	struct task *deferred_wake;	/* woken after the switch (task_exit) */
	uint64_t nr_switches;
	uint64_t ticks;			/* scheduler ticks handled */
	uint32_t tick_skew_ns;		/* this CPU's tick grid: k * period + this (tick_slot_after()) */
	volatile uint64_t last_tick_ns;	/* soft-lockup watchdog: last sign of life */
	uint64_t idle_ns, busy_ns;	/* time accounting, up to stretch_ns (sched_cpu_time()) */
	uint64_t stretch_ns;		/* when the CPU last left or entered its idle task */
	uint64_t idle_enter_ns;
	uint64_t next_balance_ns[4];	/* per domain level */
	uint64_t next_balance_any_ns;	/* min of next_balance_ns[] */
	uint64_t nr_balance_pulls[4];	/* balance passes that found a source */
	uint64_t nr_ilb_runs;		/* nohz idle balances run here */
	volatile bool nohz_kick;	/* asked to balance for idle CPUs */
	bool newidle;			/* just switched to idle: balance once */
	struct task *deferred_push;	/* runnable but no longer allowed here */
	struct task *deferred_free;	/* detached task that just exited */
	uint64_t tick_overruns;		/* ticks that ended past their next slot (tick_fn) */
	volatile bool timer_kick;	/* the watchdog saw this CPU's timer interrupt late: run due timers */
	volatile uint64_t timer_kicked_for;	/* the overdue hardware deadline it was kicked for */
	uint64_t timer_kick_ns;		/* when that kick was sent */
	uint64_t timer_kicks;		/* kicks that found timers due (their interrupt had not come) */
#ifdef CONFIG_SCHED_DEBUG
	struct task *switched_from;	/* off its CPU once the switch is done (on_cpu) */
	uint64_t nr_irq_exits;		/* sched_irq_exit() calls: a CPU that ticks but never gets here is stuck in IRQs */
	uint32_t irq_exit_ticks;	/* (u32) ticks at the last IRQ exit */
	uint64_t irq_exit_ns;		/* and when it was */
	uint64_t last_schedule_ns;	/* when schedule_locked() last ran here */
	volatile uint64_t no_preempt_until_ns;	/* `crash starve`: IRQ exits do not preempt before this */
#endif
	/*
	 * Wake-ups of tasks last on this CPU, by the current policy's outcome
	 * (reset by a switch). Word-sized, as Linux's schedstats: any CPU adds
	 * one with a single exclusive pair on a 32-bit CPU.
	 */
	unsigned long pack_stats[PACK_MAX_REASONS];
	/*
	 * Active balance (the placement policy's tick, pack.h): push this task,
	 * if it is curr when it next switches out still runnable, to
	 * misfit_dst (if still allowed there; else wherever select puts it).
	 * Written by this CPU only; a stale pointer costs one push at most.
	 * Here, not beside deferred_push: the tick's fields keep their short offsets.
	 */
	struct task *misfit_push;
	int misfit_dst;
	/*
	 * The placement policy's tick (pack.h), NULL for most: a copy per rq,
	 * set with the policy (balance_set_policy_tick()), so that the tick of
	 * a policy without one pays a load and a branch from a register.
	 */
	void (*policy_tick)(struct rq *rq);
	/* Last: ~900 bytes, which would push the hot fields past ARM's short load offsets (ldrd: 255). */
	struct rt_rq rt;
};

/* Tunables (boot arguments). */
extern unsigned int sched_hz;		/* tick rate, default 1000 */

void sched_init(int nr_cpus);
struct fdt;
/*
 * The kernel's init over a DT, the same on every port (kernel/sched/init.c):
 * sched_init(@nr_cpus), the topology for the policy named @pack (NULL: the
 * default; unknown: said, then the default), idle states and rails, the
 * energy model. Panics naming node and property on a DT it cannot use.
 * Then each CPU's sched_init_cpu() and sched_cpu_online(), as it arrives.
 */
void kernel_init_dt(const struct fdt *fdt, int nr_cpus, const char *pack);
/* The calling CPU's boot context becomes its idle task. */
void sched_init_cpu(int cpu);
/* The CPU has arrived (after sched_init_cpu): tasks may be placed on it. */
void sched_cpu_online(int cpu);
/* Every CPU the DT names (bit n = CPU n), online or not. */
uint32_t sched_possible_mask(void);
/* Late timer interrupts the watchdog kicked so far, all CPUs (kernel/sched/core.c). */
uint64_t sched_timer_kicks(void);
/* Enter the idle loop on this CPU; never returns. */
void sched_idle_loop(void) __attribute__((noreturn));

struct task *current_task(void);

/*
 * Owned by kernel/sched/core.c, visible for the inline accessors below only
 * (they sit on every wake-up path): the run queues, how many CPUs the
 * scheduler manages, and which of them have arrived.
 */
extern struct rq runqueues[CONFIG_NR_CPUS];
extern int sched_cpu_count;
extern cpumask_t sched_cpus_online;

static inline struct rq *cpu_rq(int cpu)
{
	KASSERT_DEBUG(cpu >= 0 && cpu < sched_cpu_count);
	return &runqueues[cpu];
}

static inline int sched_nr_cpus(void)
{
	return sched_cpu_count;
}

static inline bool sched_cpu_online_now(int cpu)
{
	return cpumask_test(&sched_cpus_online, cpu);
}

/* The online CPUs among the first 32 (bit n = CPU n): for the console and the boards' masks. */
static inline uint32_t sched_online_mask(void)
{
	return cpumask_low32(&sched_cpus_online);
}

/* @p's affinity and, derived from it, its weight (nr_cpus_allowed): set only together. */
static inline void task_set_cpus(struct task *p, const cpumask_t *cpus)
{
	p->cpus_allowed = *cpus;
	p->nr_cpus_allowed = cpumask_weight(cpus);
}

/* The same from a word of online CPUs (task_create, task_set_affinity). */
static inline void task_cpus_from_word(struct task *p, uint32_t cpus)
{
	cpumask_t m = cpumask_from_u32(cpus);

	task_set_cpus(p, &m);
}

/*
 * Task lifecycle. task_create() takes a word, bit n = CPU n (the first 32
 * CPUs: every board's), or TASK_CPUS_ANY for every CPU however many;
 * task_create_mask() any set. Only online CPUs are kept, and only those the
 * creating task may spawn on (its spawn_cpus: `taskset`), which the new
 * task inherits. NULL: no slot, bad nice, or no CPU left.
 */
#define TASK_CPUS_ANY 0xffffffffu
struct task *task_create(const char *name, void (*fn)(void *), void *arg, int nice,
			 uint32_t cpus_allowed);
struct task *task_create_mask(const char *name, void (*fn)(void *), void *arg, int nice,
			      const cpumask_t *cpus_allowed);
void task_exit(int code) __attribute__((noreturn));
/* Wait for @t to exit; returns its exit code and frees it. */
int task_join(struct task *t);
/* Nobody will join @t: its slot is freed as soon as it exits. */
void task_detach(struct task *t);
/* Give the CPU to another runnable task if there is one (Linux's skip buddy). */
void task_yield(void);
void task_sleep_ns(uint64_t ns);
void task_sleep_until(uint64_t deadline_ns);
/*
 * Sleep until *@cond is non-zero or @deadline_ns (TIMER_NEVER: no timeout).
 * The waker sets *cond, then calls wake_up(): no wake-up can be lost.
 * Returns whether *cond was seen non-zero.
 */
bool task_wait_until(const volatile uint32_t *cond, uint64_t deadline_ns);
void task_set_nice(struct task *t, int nice);
/*
 * Set @p's policy (SCHED_OTHER with @prio 0, SCHED_FIFO or SCHED_RR with
 * @prio 1..99), as sched_setscheduler(2): it changes class at once,
 * queued, running or asleep, keeping any PI boost. 0, or -1 (nothing
 * changed) for a bad policy or priority, the idle task or an exited one.
 */
int task_setscheduler(struct task *p, int policy, int prio);
/* The policy of the tasks the caller creates from now on (chrt): as task_setscheduler(). */
int task_set_spawn_policy(int policy, int prio);
/* PI (kernel/sync/mutex.c): @p's effective RT priority becomes @prio (0: its own). */
void task_set_effective_prio(struct task *p, int prio);
/* Linux's prio as trace events carry it: 99 - rt priority for RT, 120 + nice otherwise. */
static inline int task_trace_prio(const struct task *p)
{
	if (p->prio > 0)
		return RT_PRIO_MAX - p->prio;
	return p->is_idle ? 120 : 120 + p->se.nice;
}
/* ps -c's class names: "TS" (SCHED_OTHER), "FF", "RR". */
const char *sched_policy_short(int policy);
/* "SCHED_OTHER", "SCHED_FIFO", ... (chrt -p), or "SCHED_?" for an unknown one. */
const char *sched_policy_name(int policy);
/* The task with id @tid (live), or NULL: a snapshot, not a reference. */
struct task *task_find(uint32_t tid);
int task_set_affinity(struct task *t, uint32_t cpus_allowed);
/* Block the current task until wake_up(); call with state set first. */
void sched_block(void);
/*
 * Task context, IRQs on: switch now if this CPU was asked to (a wake-up or
 * a priority change here made another task outrank the caller), rather
 * than at the next interrupt's exit. Interrupt handlers need not: their
 * exit reschedules.
 */
void sched_preempt_point(void);
void set_current_sleeping(void);
void set_current_running(void);
bool wake_up(struct task *t);

/*
 * Scheduler entry points: the port's interrupt handlers call sched_ipi()
 * (the reschedule IPI, arch/ipi.h) and sched_irq_exit(); the tick timer and
 * a new task's first instructions (kernel/sched/) call the other two.
 */
void sched_tick(void);			/* the tick's scheduler work (its timer re-arms itself) */
void sched_ipi(void);			/* IPI_RESCHEDULE */
void sched_irq_exit(void);		/* end of every IRQ: preempt if needed */
void sched_finish_switch(void);		/* first thing a new task runs */

/* @cpu's busy and idle time up to @now, the stretch in progress included (no lock: a snapshot). */
void sched_cpu_time(int cpu, uint64_t now, uint64_t *busy_ns, uint64_t *idle_ns);
/* Iteration for ps/top: calls fn for each live task, with no lock held. */
void sched_for_each_task(void (*fn)(const struct task *t, void *arg), void *arg);
const char *task_state_name(const struct task *t);
int sched_nr_tasks(void);
/* Assert every task is in exactly one place; returns the tasks checked. */
int sched_check_invariants(void);

/*
 * Consistent PELT snapshots for any CPU (seqcount); an idle CPU's copy is
 * aged to now as idle time.
 */
void rq_avg_read(int cpu, struct sched_avg *out);
static inline void task_avg_read(const struct task *p, struct sched_avg *out)
{
	pelt_snapshot(&p->se.avg, out);
}


/* The task whose stack guard page holds @addr, or NULL. */
struct task *task_of_guard(uintptr_t addr);
/* A guard page address for fault tests: the last task slot's. */
uintptr_t task_spare_guard_page(void);

/* Between kernel/sched/core.c and kernel/sched/task.c. */
struct task *task_alloc_idle(int cpu);
void sched_start_task(struct task *t);
void task_free(struct task *t);
void sched_exit_current(int code) __attribute__((noreturn));

#endif
