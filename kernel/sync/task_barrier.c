/* Task barriers; see include/kernel/sync/task_barrier.h. */
#include "kernel/sync/task_barrier.h"

#include <stddef.h>

#include "kernel/lib/panic.h"
#include "kernel/sched/sched.h"

void task_barrier_init(struct task_barrier *b, uint32_t parties)
{
	KASSERT(parties >= 1);
	waitqueue_init(&b->wq);
	b->parties = parties;
	b->arrived = 0;
	b->generation = 0;
}

enum barrier_result task_barrier_arrive(struct task_barrier *b, struct wait_entry *e, struct task *t)
{
	unsigned long flags = spin_lock_irqsave(&b->wq.lock);
	enum barrier_result r = BARRIER_WAITED;

	KASSERT(b->arrived < b->parties);
	if (++b->arrived == b->parties) {
		b->arrived = 0;
		b->generation++;
		while (wq_wake_one_locked(&b->wq, b->generation))
			;
		r = BARRIER_LAST;
	} else {
		wq_add_locked(&b->wq, e, t);
	}
	spin_unlock_irqrestore(&b->wq.lock, flags);
	return r;
}

/* Under the barrier's lock, as an abandoned waiter leaves: it no longer counts as arrived. */
static void barrier_abandon(struct wait_entry *e)
{
	struct task_barrier *b = (struct task_barrier *)((char *)e->wq - offsetof(struct task_barrier, wq));

	KASSERT(b->arrived > 0);
	b->arrived--;
}

enum barrier_result task_barrier_wait(struct task_barrier *b, const volatile bool *stop)
{
	struct wait_entry e;
	enum barrier_result r = task_barrier_arrive(b, &e, current_task());

	if (r == BARRIER_LAST)
		return r;
	return wq_sleep_abandon(&e, stop, barrier_abandon) ? BARRIER_WAITED : BARRIER_STOPPED;
}
