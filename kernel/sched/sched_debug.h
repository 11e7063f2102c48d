/*
 * What debug kernels (CONFIG_SCHED_DEBUG: make kernel-debug-BOARD, host
 * tests) add to the scheduler's hot paths, kept out of core.c: each hook is
 * empty in release kernels. The checks they feed are in kernel/debug/ (the
 * starvation detector, task histories) and sched_check_invariants().
 * Private to kernel/sched/core.c.
 */
#ifndef KERNEL_SCHED_DEBUG_H
#define KERNEL_SCHED_DEBUG_H

#include "kernel/sched/sched_internal.h"

#ifdef CONFIG_SCHED_DEBUG
/* The tick, under the rq lock: is a task starving here? (@hit: the report to make after the unlock.) */
static inline bool debug_tick_locked(const struct rq *rq, uint64_t now, struct starve_hit *hit)
{
	return rq->ticks % STARVE_CHECK_TICKS == 0 && starve_check(rq, now, hit);
}

/* The tick, after the unlock: report a starving task; every task in one place, twice a second (CPU 0). */
static inline void debug_tick_unlocked(const struct rq *rq, bool starving, const struct starve_hit *hit)
{
	if (starving)
		starve_report(rq->cpu, hit);
	/* Every tick: the N highest-priority RT tasks run (cheap unless RT tasks wait here). */
	if (READ_ONCE(rq->rt.overloaded))
		rt_check_invariant(rq->cpu, arch_now_ns(), RT_INVARIANT_GRACE_NS);
	if (rq->cpu == 0 && rq->ticks % (sched_hz / 2 ? sched_hz / 2 : 1) == 0)
		sched_check_invariants();
}

/* @p starts waiting on @rq (enqueued or pushed to its wake list): the detector's clock in its ticks. */
static inline void debug_wait_begins(struct task *p, const struct rq *rq, uint64_t now)
{
	p->wait_start_ns = now;
	p->wait_ticks_base = (uint32_t)READ_ONCE(rq->ticks);
}

/* The same from a remote CPU's wake list push (the clock is read here: release kernels read none). */
static inline void debug_wait_begins_now(struct task *p, const struct rq *rq)
{
	debug_wait_begins(p, rq, arch_now_ns());
}

static inline void debug_schedule(struct rq *rq, uint64_t now)
{
	rq->last_schedule_ns = now;
}

/* The switch from @prev to @next, just before it. */
static inline void debug_switch(struct rq *rq, struct task *prev, bool prev_idle, struct task *next, uint64_t now)
{
	/* Its stack must be free: a task still switching out elsewhere would run twice. */
	KASSERT(!next->on_cpu);
	next->on_cpu = true;
	rq->switched_from = prev;
	if (prev->on_rq && !prev_idle)
		debug_wait_begins(prev, rq, now);	/* preempted or yielding: it waits here from now on */
	if (!prev_idle)
		task_history(prev, TEV_OUT, rq->cpu, prev->state);
	if (!next->is_idle)
		task_history(next, TEV_RUN, rq->cpu, 0);
}

/* After the switch: the task switched out no longer runs anywhere. */
static inline void debug_finish_switch(struct rq *rq)
{
	if (rq->switched_from) {
		rq->switched_from->on_cpu = false;
		rq->switched_from = NULL;
	}
}

/* An IRQ ends: counted; true while `crash starve` holds preemption off on this CPU. */
static inline bool debug_irq_exit(struct rq *rq)
{
	rq->nr_irq_exits++;
	rq->irq_exit_ticks = (uint32_t)rq->ticks;
	rq->irq_exit_ns = arch_now_ns();
	return READ_ONCE(rq->no_preempt_until_ns) > arch_now_ns();
}
#else
static inline bool debug_tick_locked(const struct rq *rq, uint64_t now, struct starve_hit *hit)
{
	(void)rq, (void)now, (void)hit;
	return false;
}
static inline void debug_tick_unlocked(const struct rq *rq, bool starving, const struct starve_hit *hit)
{
	(void)rq, (void)starving, (void)hit;
}
static inline void debug_wait_begins(struct task *p, const struct rq *rq, uint64_t now)
{
	(void)p, (void)rq, (void)now;
}
static inline void debug_wait_begins_now(struct task *p, const struct rq *rq)
{
	(void)p, (void)rq;
}
static inline void debug_schedule(struct rq *rq, uint64_t now)
{
	(void)rq, (void)now;
}
static inline void debug_switch(struct rq *rq, struct task *prev, bool prev_idle, struct task *next, uint64_t now)
{
	(void)rq, (void)prev, (void)prev_idle, (void)next, (void)now;
}
static inline void debug_finish_switch(struct rq *rq)
{
	(void)rq;
}
static inline bool debug_irq_exit(struct rq *rq)
{
	(void)rq;
	return false;
}
#endif

#endif
