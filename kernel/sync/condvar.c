/* Condition variables; see include/kernel/sync/condvar.h. */
#include "kernel/sync/condvar.h"

#include "kernel/sched/sched.h"

void condvar_init(struct condvar *c)
{
	struct condvar init = CONDVAR_INIT;

	*c = init;
}

enum mutex_result cond_queue_and_unlock(struct condvar *c, struct mutex *m, struct wait_entry *e,
					struct task *t)
{
	unsigned long flags;
	enum mutex_result r;

	if (mutex_owner(m) != t)
		return MUTEX_NOT_OWNER;
	/* Queued before the mutex goes: a signal sent under the mutex cannot miss us. */
	flags = spin_lock_irqsave(&c->wq.lock);
	wq_add_locked(&c->wq, e, t);
	spin_unlock_irqrestore(&c->wq.lock, flags);
	r = mutex_unlock_for(m, t);
	KASSERT(r == MUTEX_OK);
	return MUTEX_OK;
}

enum mutex_result cond_wait(struct condvar *c, struct mutex *m, const volatile bool *stop)
{
	struct wait_entry e;
	enum mutex_result r = cond_queue_and_unlock(c, m, &e, current_task());

	if (r != MUTEX_OK)
		return r;
	if (!wq_sleep(&e, stop))
		return MUTEX_STOPPED;
	return mutex_lock_stoppable(m, stop);
}

int cond_signal(struct condvar *c)
{
	int n = wq_wake_one(&c->wq);

	__atomic_fetch_add(&c->nr_signals, 1, __ATOMIC_RELAXED);
	if (n == 0)
		__atomic_fetch_add(&c->nr_lost, 1, __ATOMIC_RELAXED);
	return n;
}

int cond_broadcast(struct condvar *c)
{
	int n = wq_wake_all(&c->wq);

	__atomic_fetch_add(&c->nr_signals, 1, __ATOMIC_RELAXED);
	if (n == 0)
		__atomic_fetch_add(&c->nr_lost, 1, __ATOMIC_RELAXED);
	return n;
}
