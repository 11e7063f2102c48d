/*
 * Scheduling classes: each a table of operations (Linux's sched_class), so
 * the core (kernel/sched/core.c) asks a class and never reads its queues.
 *
 * A class is one file under kernel/sched/ (plus its header) that declares
 * its table with SCHED_CLASS(); the link collects the tables (section
 * sched_classes) and sched_init() orders them by rank, lowest first: rt 10,
 * fair 20, idle 90. A CPU runs a task of the first class that has one
 * runnable; a waking task of a higher class preempts one of a lower class
 * at once.
 *
 * Every operation below is called with the rq's lock held and IRQs off,
 * except where said. The core keeps the class-neutral counts
 * (rq->nr_running, rq->class_nr[]) and calls enqueue/dequeue only for a
 * task of that class; curr stays "on the rq" (on_rq) while it runs, in
 * every class, as in Linux.
 */
#ifndef KERNEL_SCHED_CLASS_H
#define KERNEL_SCHED_CLASS_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/lib/linked_table.h"

struct rq;
struct task;

/* Scheduling policies: Linux's numbers (sched_setscheduler(2)). */
#define SCHED_OTHER 0
#define SCHED_FIFO 1
#define SCHED_RR 2
#define SCHED_BATCH 3
#define SCHED_IDLE 5
#define SCHED_DEADLINE 6
#define SCHED_POLICY_BIT(policy) (1u << (policy))

/* Real-time priorities as users give them: 1..99, higher runs first (0: not real-time). */
#define RT_PRIO_MIN 1
#define RT_PRIO_MAX 99

#define SCHED_MAX_CLASSES 4

/* enqueue flag beside fair.h's ENQ_*: to the head of its priority's list (a lowered RT priority). */
#define ENQ_HEAD 8

struct sched_class {
	const char *name;
	uint32_t policies;	/* SCHED_POLICY_BIT()s its tasks have; 0: the idle class */
	bool idle;		/* the class of each CPU's idle task (exactly one) */

	/* Set up the class's part of @rq (sched_init; no lock). */
	void (*init_rq)(struct rq *rq);
	/* @p (of this class) joins @rq: ENQ_* flags (include/kernel/sched/fair.h). */
	void (*enqueue)(struct rq *rq, struct task *p, int flags);
	/* @p leaves @rq (DEQ_* flags); it may be curr (going to sleep). */
	void (*dequeue)(struct rq *rq, struct task *p, int flags);
	/*
	 * The class's next task for @rq (NULL: none runnable), made its curr:
	 * @prev (any class, charged up to now) yields when @yield. Called only
	 * when the class has a task on @rq or @prev is of this class.
	 */
	struct task *(*pick_next)(struct rq *rq, struct task *prev, bool yield, uint64_t now);
	/* @prev (this class, still queued) loses the CPU to another class's task. */
	void (*put_prev)(struct rq *rq, struct task *prev);
	/* Running @p has just joined this class (a policy or priority change): it is curr. */
	void (*set_curr)(struct rq *rq, struct task *p, uint64_t now);
	/* Charge curr (this class) for its time since it was last charged. */
	void (*update_curr)(struct rq *rq, uint64_t now);
	/* The tick, curr of this class: set rq->need_resched when its turn is over. */
	void (*tick)(struct rq *rq, struct task *curr, uint64_t now);
	/* Should @p, just queued, preempt curr (both of this class)? */
	bool (*check_preempt)(const struct rq *rq, const struct task *p);
	/*
	 * The CPU @p runs on when it wakes (@wakeup) or is placed anew (prev:
	 * @prev_cpu; IRQs off, no rq lock held). Always a CPU @p may use.
	 */
	int (*select_rq)(struct task *p, int prev_cpu, bool wakeup);
	/* @p leaves @src's queue for another rq (wake-up elsewhere: @src locked, @p off it). */
	void (*migrate)(struct rq *src, struct task *p);
	/*
	 * Work the class asked for by setting its bit in rq->class_work (RT
	 * push and pull): run by whoever unlocks @rq next, with no rq lock
	 * held, IRQs off. NULL for a class that never sets its bit.
	 */
	void (*balance)(struct rq *rq);
	/*
	 * Queued @p's affinity has just changed (it had @old_weight CPUs), @rq
	 * locked; if @rq's CPU is no longer allowed, the core moves @p next.
	 * NULL: the class does not care.
	 */
	void (*set_cpus_allowed)(struct rq *rq, struct task *p, int old_weight);
	/* @p has just joined this class, before it is queued again (if it is); p->cpu's rq is locked. */
	void (*switched_to)(struct rq *rq, struct task *p);
	/* Each task queued on @rq, curr included: @fn for each (debug checks, reports). */
	void (*for_each_queued)(const struct rq *rq, void (*fn)(const struct task *p, void *arg), void *arg);
	/* How many of its tasks on @rq may not run now (RT throttling); NULL: none ever. */
	unsigned int (*nr_throttled)(const struct rq *rq);
	/*
	 * Check the class's queue on @rq (sched_check_invariants, every rq
	 * locked): NULL if it holds, else what is broken, for the panic line.
	 */
	const char *(*check)(const struct rq *rq);

	int idx;		/* its place in the order (set at sched_init) */
};


/*
 * Declares @cls (a struct sched_class of this file) in the section
 * sched_classes (include/kernel/lib/linked_table.h): rt 10, fair 20, idle 90.
 */
#define SCHED_CLASS(cls, rank) LINKED_ENTRY(sched_classes, cls, rank)

/*
 * The fair class (SCHED_OTHER's, kernel/sched/fair.c) runs nearly every
 * task, so the core's hot paths call its operations directly when the task
 * is in it, which the kernel's link-time optimisation inlines, and through
 * the table otherwise (Linux's pick_next_task() fast path, for every
 * operation on the switch and wake-up paths). The class's behaviour is the
 * same either way: its table holds the same functions.
 */
extern struct sched_class fair_sched_class;
#define sched_class_call(cls, op, ...)                                                                  \
	((cls) == &fair_sched_class ? fair_##op(__VA_ARGS__) : (cls)->op(__VA_ARGS__))

/* The classes in order (sched_class_order[0] runs first), and how many. */
extern const struct sched_class *sched_class_order[SCHED_MAX_CLASSES];
extern int sched_nr_classes;
/* Order the linked classes (sched_init; panics on a table that breaks the contract). */
void sched_classes_init(void);
/* The class that runs tasks of @policy, or NULL. */
const struct sched_class *sched_class_of_policy(int policy);
/* The idle tasks' class. */
const struct sched_class *sched_idle_class(void);

#endif
