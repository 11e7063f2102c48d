/* Sleeping mutexes with owner tracking and hand-off; see include/kernel/sync/mutex.h. */
#include "kernel/sync/mutex.h"

#include "kernel/lib/panic.h"
#include "kernel/sched/sched.h"

void mutex_init(struct mutex *m)
{
	struct mutex init = MUTEX_INIT;

	*m = init;
}

bool mutex_lock_or_queue(struct mutex *m, struct wait_entry *e, struct task *t)
{
	unsigned long flags = spin_lock_irqsave(&m->wq.lock);
	bool got = m->owner == NULL;

	KASSERT(m->owner != t);
	if (got)
		__atomic_store_n(&m->owner, t, __ATOMIC_RELEASE);
	else {
		wq_add_locked(&m->wq, e, t);
		m->nr_contended++;
	}
	spin_unlock_irqrestore(&m->wq.lock, flags);
	return got;
}

enum mutex_result mutex_lock_stoppable(struct mutex *m, const volatile bool *stop)
{
	struct task *self = current_task();
	struct wait_entry e;

	if (mutex_owner(m) == self)
		return MUTEX_DEADLOCK;
	if (mutex_lock_or_queue(m, &e, self))
		return MUTEX_OK;
	if (!wq_sleep(&e, stop))
		return MUTEX_STOPPED;
	/* Handed over by the unlocker. */
	KASSERT(mutex_owner(m) == self);
	return MUTEX_OK;
}

void mutex_lock(struct mutex *m)
{
	enum mutex_result r = mutex_lock_stoppable(m, NULL);

	KASSERT(r == MUTEX_OK);
}

bool mutex_trylock(struct mutex *m)
{
	unsigned long flags = spin_lock_irqsave(&m->wq.lock);
	bool got = m->owner == NULL;

	if (got)
		__atomic_store_n(&m->owner, current_task(), __ATOMIC_RELEASE);
	spin_unlock_irqrestore(&m->wq.lock, flags);
	return got;
}

enum mutex_result mutex_unlock_for(struct mutex *m, const struct task *t)
{
	unsigned long flags = spin_lock_irqsave(&m->wq.lock);
	struct wait_entry *next;

	if (m->owner != t) {
		spin_unlock_irqrestore(&m->wq.lock, flags);
		return MUTEX_NOT_OWNER;
	}
	next = wq_first_locked(&m->wq);
	/* Hand-off: the first waiter owns it before it even runs. */
	__atomic_store_n(&m->owner, next ? next->task : NULL, __ATOMIC_RELEASE);
	if (next) {
		m->nr_handoffs++;
		wq_wake_one_locked(&m->wq, 0);
	}
	spin_unlock_irqrestore(&m->wq.lock, flags);
	return MUTEX_OK;
}

enum mutex_result mutex_unlock_check(struct mutex *m)
{
	return mutex_unlock_for(m, current_task());
}

void mutex_unlock(struct mutex *m)
{
	enum mutex_result r = mutex_unlock_check(m);

	KASSERT(r == MUTEX_OK);
}
