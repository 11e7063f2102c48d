/*
 * Sleeping mutexes with owner tracking, hand-off and priority inheritance;
 * see include/kernel/sync/mutex.h.
 */
#include "kernel/sync/mutex.h"

#include "kernel/lib/panic.h"
#include "kernel/sched/sched.h"

static spinlock_t pi_lock = SPINLOCK_INIT;

void mutex_init(struct mutex *m)
{
	struct mutex init = MUTEX_INIT;

	*m = init;
}

/* The waiter that gets @m: the highest priority, the first queued among equals; NULL if none. m->wq.lock held. */
static struct wait_entry *top_waiter(const struct mutex *m)
{
	struct wait_entry *best = m->wq.head;

	for (struct wait_entry *e = m->wq.head; e; e = e->next)
		if (e->task->prio > best->task->prio)
			best = e;
	return best;
}

/* The RT priority @m's owner inherits from its waiters, 0 if none (or @m lends none). m->wq.lock held. */
static int top_waiter_prio(const struct mutex *m)
{
	const struct wait_entry *e = m->prio_none ? NULL : top_waiter(m);

	return e ? e->task->prio : 0;
}

/* What @t should inherit: the top waiter of each mutex it holds. pi_lock held. */
static int pi_wanted(const struct task *t)
{
	int best = 0;

	for (struct mutex *m = t->pi_held; m; m = m->held_next) {
		unsigned long flags = spin_lock_irqsave(&m->wq.lock);
		int w = top_waiter_prio(m);

		spin_unlock_irqrestore(&m->wq.lock, flags);
		if (w > best)
			best = w;
	}
	return best;
}

/*
 * Bring @t's inherited priority up to date, then the owner of the mutex @t
 * waits on, and so on up the chain (at most PI_MAX_DEPTH owners). pi_lock held.
 */
static void pi_update_chain(struct task *t)
{
	for (int depth = 0; t && depth < PI_MAX_DEPTH; depth++) {
		int want = pi_wanted(t);
		struct mutex *next;

		if (want == t->pi_prio)
			return;
		task_set_effective_prio(t, want);
		next = t->blocked_on;
		t = next ? mutex_owner(next) : NULL;
	}
}

static void held_add(struct task *t, struct mutex *m)
{
	m->held_next = t->pi_held;
	t->pi_held = m;
}

static void held_remove(struct task *t, struct mutex *m)
{
	struct mutex **pp = &t->pi_held;

	while (*pp != m) {
		KASSERT(*pp);
		pp = &(*pp)->held_next;
	}
	*pp = m->held_next;
	m->held_next = NULL;
}

bool mutex_lock_or_queue(struct mutex *m, struct wait_entry *e, struct task *t)
{
	unsigned long flags = spin_lock_irqsave(&pi_lock);
	struct task *owner;
	bool got;

	spin_lock(&m->wq.lock);
	owner = m->owner;
	got = owner == NULL;
	KASSERT(owner != t);
	if (got) {
		__atomic_store_n(&m->owner, t, __ATOMIC_RELEASE);
		held_add(t, m);
	} else {
		wq_add_locked(&m->wq, e, t);
		t->blocked_on = m;
		m->nr_contended++;
	}
	spin_unlock(&m->wq.lock);
	if (!got && !m->prio_none && t->prio > owner->pi_prio)
		pi_update_chain(owner);	/* the owner runs at our priority until it lets go */
	spin_unlock_irqrestore(&pi_lock, flags);
	return got;
}

/* A waiter that gave up (its stop flag): it no longer lends its priority. */
static void lock_abandoned(struct mutex *m, struct task *t)
{
	unsigned long flags = spin_lock_irqsave(&pi_lock);
	struct task *owner = mutex_owner(m);

	t->blocked_on = NULL;
	if (owner && owner != t)
		pi_update_chain(owner);
	spin_unlock_irqrestore(&pi_lock, flags);
}

enum mutex_result mutex_lock_stoppable(struct mutex *m, const volatile bool *stop)
{
	struct task *self = current_task();
	struct wait_entry e;

	if (mutex_owner(m) == self)
		return MUTEX_DEADLOCK;
	if (mutex_lock_or_queue(m, &e, self))
		return MUTEX_OK;
	if (!wq_sleep(&e, stop)) {
		lock_abandoned(m, self);
		return MUTEX_STOPPED;
	}
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
	unsigned long flags = spin_lock_irqsave(&pi_lock);
	struct task *self = current_task();
	bool got;

	spin_lock(&m->wq.lock);
	got = m->owner == NULL;
	if (got) {
		__atomic_store_n(&m->owner, self, __ATOMIC_RELEASE);
		held_add(self, m);
	}
	spin_unlock(&m->wq.lock);
	spin_unlock_irqrestore(&pi_lock, flags);
	return got;
}

enum mutex_result mutex_unlock_for(struct mutex *m, const struct task *t)
{
	unsigned long flags = spin_lock_irqsave(&pi_lock);
	struct task *old = m->owner, *next_owner = NULL;
	struct wait_entry *next;

	spin_lock(&m->wq.lock);
	if (old != t) {
		spin_unlock(&m->wq.lock);
		spin_unlock_irqrestore(&pi_lock, flags);
		return MUTEX_NOT_OWNER;
	}
	held_remove(old, m);
	next = top_waiter(m);
	/* Hand-off: the chosen waiter owns it before it even runs. */
	if (next) {
		next_owner = next->task;
		next_owner->blocked_on = NULL;
		held_add(next_owner, m);
		m->nr_handoffs++;
	}
	__atomic_store_n(&m->owner, next_owner, __ATOMIC_RELEASE);
	if (next)
		wq_wake_entry_locked(&m->wq, next, 0);
	spin_unlock(&m->wq.lock);
	/* The old owner keeps only what its other mutexes lend it; the new one inherits the rest of the queue. */
	pi_update_chain(old);
	if (next_owner)
		pi_update_chain(next_owner);
	spin_unlock_irqrestore(&pi_lock, flags);
	return MUTEX_OK;
}

enum mutex_result mutex_unlock_check(struct mutex *m)
{
	enum mutex_result r = mutex_unlock_for(m, current_task());

	/* A deboosted owner gives the CPU to the waiter it was holding back, now (Linux's rt_mutex_postunlock). */
	if (r == MUTEX_OK)
		sched_preempt_point();
	return r;
}

void mutex_unlock(struct mutex *m)
{
	enum mutex_result r = mutex_unlock_check(m);

	KASSERT(r == MUTEX_OK);
}
