/*
 * Sleeping mutexes with an owner: a task that finds the mutex taken sleeps
 * on its wait queue (FIFO) instead of spinning; unlock hands the mutex
 * straight to the first waiter (it wakes up as the owner, so nobody can
 * overtake it). Only the owner may unlock; taking a mutex one already
 * holds is refused (no recursion), never a deadlock. Not for IRQ context.
 * Used by rt-app's lock/unlock/wait events.
 *
 * Priority inheritance (as Linux's rt_mutex): the owner runs at the
 * highest RT priority of the tasks waiting on the mutexes it holds, through
 * chains of owners that wait on other mutexes (PI_MAX_DEPTH deep); unlock
 * hands the mutex to the highest-priority waiter (the longest waiting among
 * equals), and the old owner drops back to what it still inherits. One
 * lock, pi_lock, guards every task's held list, blocked_on and boost; lock
 * order: pi_lock, a queue's lock, rq locks.
 *
 * A mutex set to prio_none (POSIX's PTHREAD_PRIO_NONE, what rt-app's
 * mutexes are unless its global "pi_enabled" is true) lends its waiters'
 * priority to nobody: its owner runs at its own priority, so a
 * middle-priority task may hold off the owner and with it every waiter
 * (the classic inversion). Hand-off still goes to the highest waiter, as
 * Linux's futex wake-up order does.
 */
#ifndef KERNEL_MUTEX_H
#define KERNEL_MUTEX_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/sync/waitqueue.h"

struct task;

struct mutex {
	struct waitqueue wq;		/* wq.lock guards owner too */
	struct task *owner;		/* NULL: free */
	struct mutex *held_next;	/* the owner's other held mutexes (task->pi_held) */
	uint32_t nr_contended;		/* lock calls that had to sleep */
	uint32_t nr_handoffs;		/* unlocks that passed it to a waiter */
	bool prio_none;			/* no inheritance (set before first use) */
};

#define MUTEX_INIT { .wq = WAITQUEUE_INIT }

enum mutex_result {
	MUTEX_OK = 0,
	MUTEX_STOPPED,		/* *stop became true first: not taken */
	MUTEX_DEADLOCK,		/* the caller holds it already */
	MUTEX_NOT_OWNER,	/* unlock by a task that does not hold it */
};

void mutex_init(struct mutex *m);
/* Take @m, sleeping while it is held; *@stop (NULL: never) abandons the wait. */
enum mutex_result mutex_lock_stoppable(struct mutex *m, const volatile bool *stop);
void mutex_lock(struct mutex *m);
bool mutex_trylock(struct mutex *m);
/* Release @m (the caller must own it); the first waiter, if any, becomes the owner. */
enum mutex_result mutex_unlock_check(struct mutex *m);
void mutex_unlock(struct mutex *m);
static inline struct task *mutex_owner(const struct mutex *m)
{
	return __atomic_load_n(&m->owner, __ATOMIC_ACQUIRE);
}

/*
 * The two halves of mutex_lock for a given task (host tests drive them with
 * tasks that do not run): take @m for @t now, or queue @e and return false.
 */
bool mutex_lock_or_queue(struct mutex *m, struct wait_entry *e, struct task *t);
#define PI_MAX_DEPTH 8	/* owners a boost passes through (a longer chain stops there) */

/* mutex_unlock_check() on behalf of @t. */
enum mutex_result mutex_unlock_for(struct mutex *m, const struct task *t);

#endif
