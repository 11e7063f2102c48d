/*
 * Wait queues: FIFO lists of sleeping tasks, the building block of the
 * kernel's sleeping locks (kernel/sync/mutex.c, condvar.c, semaphore.c,
 * task_barrier.c).
 *
 * A waiter puts a struct wait_entry (on its own stack) on the queue under
 * the queue's lock, drops the lock and calls wq_sleep(). A waker takes
 * entries off the head under the lock, marks them woken and wakes their
 * task: the entry leaves the queue before its task runs again, so a woken
 * entry is never touched by anyone but its owner. wq_sleep() re-checks
 * after every wake-up (spurious ones are harmless) and can be abandoned
 * through a stop flag: whoever sets *stop then calls wake_up() on the
 * sleeper (rt-app's end of run). Lock order: queue lock, then rq locks.
 */
#ifndef KERNEL_WAITQUEUE_H
#define KERNEL_WAITQUEUE_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/spinlock.h"

struct task;

struct wait_entry {
	struct task *task;
	struct wait_entry *next;
	struct waitqueue *wq;		/* the queue it was put on */
	volatile bool woken;		/* taken off the queue by a waker */
	uintptr_t data;			/* what the waker handed over (ownership, a token) */
};

struct waitqueue {
	spinlock_t lock;
	struct wait_entry *head, *tail;
	uint32_t nr_waiters;
};

#define WAITQUEUE_INIT { .lock = SPINLOCK_INIT }

void waitqueue_init(struct waitqueue *wq);

/* Under wq->lock: append @e for @task (normally the current task). */
void wq_add_locked(struct waitqueue *wq, struct wait_entry *e, struct task *task);
/* Under wq->lock: take the head off, hand it @data, wake it; NULL if empty. */
struct task *wq_wake_one_locked(struct waitqueue *wq, uintptr_t data);
/* Under wq->lock: take @e (queued on @wq) off, hand it @data, wake it. */
void wq_wake_entry_locked(struct waitqueue *wq, struct wait_entry *e, uintptr_t data);
/* Under wq->lock: the head entry (not removed), or NULL. */
static inline struct wait_entry *wq_first_locked(const struct waitqueue *wq)
{
	return wq->head;
}

/* Take the lock and wake the first waiter / every waiter; how many were woken. */
int wq_wake_one(struct waitqueue *wq);
int wq_wake_all(struct waitqueue *wq);

/*
 * Sleep until @e is woken (returns true) or *@stop becomes true (NULL: never),
 * in which case @e is taken off its queue and false is returned, unless a
 * waker got there first (then true). Call without wq->lock, after
 * wq_add_locked().
 */
bool wq_sleep(struct wait_entry *e, const volatile bool *stop);
/* The same; when the wait is abandoned, @abandon(@e) runs under wq->lock as @e leaves the queue. */
bool wq_sleep_abandon(struct wait_entry *e, const volatile bool *stop, void (*abandon)(struct wait_entry *e));

#endif
