/*
 * The idle class (include/kernel/sched/class.h): each CPU's idle task, run
 * when no other class has a task. Nothing is ever queued in it; its task
 * is not counted in rq->nr_running.
 */
#include "kernel/lib/panic.h"
#include "kernel/sched/sched_internal.h"

static void idle_enqueue(struct rq *rq, struct task *p, int flags)
{
	(void)rq;
	(void)flags;
	panic("sched: task %u queued in the idle class", (unsigned)p->tid);
}

static void idle_dequeue(struct rq *rq, struct task *p, int flags)
{
	(void)rq;
	(void)flags;
	panic("sched: task %u dequeued from the idle class", (unsigned)p->tid);
}

static struct task *idle_pick_next(struct rq *rq, struct task *prev, bool yield, uint64_t now)
{
	(void)prev;
	(void)yield;
	(void)now;
	return rq->idle;
}

static void idle_put_prev(struct rq *rq, struct task *prev)
{
	(void)rq;
	(void)prev;
}

static void idle_set_curr(struct rq *rq, struct task *p, uint64_t now)
{
	(void)rq;
	(void)now;
	panic("sched: task %u moved into the idle class", (unsigned)p->tid);
}

static void idle_update_curr(struct rq *rq, uint64_t now)
{
	(void)rq;
	(void)now;
}

static void idle_tick(struct rq *rq, struct task *curr, uint64_t now)
{
	(void)rq;
	(void)curr;
	(void)now;
}

static bool idle_check_preempt(const struct rq *rq, const struct task *p)
{
	(void)rq;
	(void)p;
	return true;
}

static int idle_select_rq(struct task *p, int prev_cpu, bool wakeup)
{
	(void)wakeup;
	panic("sched: idle task %u placed on cpu%d", (unsigned)p->tid, prev_cpu);
}

static struct sched_class idle_sched_class = {
	.name = "idle",
	.idle = true,
	.enqueue = idle_enqueue,
	.dequeue = idle_dequeue,
	.pick_next = idle_pick_next,
	.put_prev = idle_put_prev,
	.set_curr = idle_set_curr,
	.update_curr = idle_update_curr,
	.tick = idle_tick,
	.check_preempt = idle_check_preempt,
	.select_rq = idle_select_rq,
};
SCHED_CLASS(idle_sched_class, 90);
