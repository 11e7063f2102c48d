/* Wait queues; see include/kernel/sync/waitqueue.h. */
#include "kernel/sync/waitqueue.h"

#include "arch/barrier.h"
#include "arch/cpu.h"
#include "kernel/lib/panic.h"
#include "kernel/sched/sched.h"

void waitqueue_init(struct waitqueue *wq)
{
	struct waitqueue init = WAITQUEUE_INIT;

	*wq = init;
}

void wq_add_locked(struct waitqueue *wq, struct wait_entry *e, struct task *task)
{
	KASSERT(spin_is_locked(&wq->lock));
	e->task = task;
	e->next = NULL;
	e->wq = wq;
	e->woken = false;
	e->data = 0;
	if (wq->tail)
		wq->tail->next = e;
	else
		wq->head = e;
	wq->tail = e;
	wq->nr_waiters++;
}

/* Unlink @e (queued on @wq), wake its task with @data; returns the task. */
static struct task *wake_entry(struct waitqueue *wq, struct wait_entry *e, uintptr_t data)
{
	struct wait_entry **pp = &wq->head, *prev = NULL;
	struct task *t;

	KASSERT(spin_is_locked(&wq->lock) && wq->nr_waiters > 0);
	while (*pp != e) {
		KASSERT(*pp);
		prev = *pp;
		pp = &(*pp)->next;
	}
	*pp = e->next;
	if (wq->tail == e)
		wq->tail = prev;
	wq->nr_waiters--;
	/* Read everything from @e before it is marked: its owner may return at once. */
	t = e->task;
	e->data = data;
	__atomic_store_n(&e->woken, true, __ATOMIC_RELEASE);
	wake_up(t);
	return t;
}

struct task *wq_wake_one_locked(struct waitqueue *wq, uintptr_t data)
{
	return wq->head ? wake_entry(wq, wq->head, data) : NULL;
}

void wq_wake_entry_locked(struct waitqueue *wq, struct wait_entry *e, uintptr_t data)
{
	wake_entry(wq, e, data);
}

int wq_wake_one(struct waitqueue *wq)
{
	unsigned long flags = spin_lock_irqsave(&wq->lock);
	int n = wq_wake_one_locked(wq, 0) ? 1 : 0;

	spin_unlock_irqrestore(&wq->lock, flags);
	return n;
}

int wq_wake_all(struct waitqueue *wq)
{
	unsigned long flags = spin_lock_irqsave(&wq->lock);
	int n = 0;

	while (wq_wake_one_locked(wq, 0))
		n++;
	spin_unlock_irqrestore(&wq->lock, flags);
	return n;
}

/* Take @e off its queue if it is still on it (then @abandon runs, under the lock); false if a waker took it first. */
static bool wq_remove(struct wait_entry *e, void (*abandon)(struct wait_entry *e))
{
	struct waitqueue *wq = e->wq;
	unsigned long flags = spin_lock_irqsave(&wq->lock);
	struct wait_entry **pp = &wq->head, *prev = NULL;
	bool removed = false;

	if (!__atomic_load_n(&e->woken, __ATOMIC_ACQUIRE)) {
		while (*pp && *pp != e) {
			prev = *pp;
			pp = &(*pp)->next;
		}
		KASSERT(*pp == e);	/* not woken, so still queued */
		*pp = e->next;
		if (wq->tail == e)
			wq->tail = prev;
		wq->nr_waiters--;
		removed = true;
		if (abandon)
			abandon(e);
	}
	spin_unlock_irqrestore(&wq->lock, flags);
	return removed;
}

bool wq_sleep_abandon(struct wait_entry *e, const volatile bool *stop, void (*abandon)(struct wait_entry *e))
{
	KASSERT(e->task == current_task());
	for (;;) {
		/*
		 * IRQs off from the state change to the check: a tick between them
		 * would switch us out as asleep after a wake-up we had missed.
		 */
		unsigned long flags = arch_irq_save();

		set_current_sleeping();		/* full barrier: pairs with wake_up()'s */
		if (__atomic_load_n(&e->woken, __ATOMIC_ACQUIRE) || (stop && READ_ONCE(*stop))) {
			set_current_running();
			arch_irq_restore(flags);
			break;
		}
		arch_irq_restore(flags);
		sched_block();
	}
	if (__atomic_load_n(&e->woken, __ATOMIC_ACQUIRE))
		return true;
	return !wq_remove(e, abandon);
}

bool wq_sleep(struct wait_entry *e, const volatile bool *stop)
{
	return wq_sleep_abandon(e, stop, NULL);
}
