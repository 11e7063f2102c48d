/*
 * Condition variables over kernel mutexes (pthread_cond_* semantics, which
 * rt-app's wait/signal/broad/sync/suspend/resume events use): cond_wait()
 * queues the caller, releases the mutex, sleeps until signalled, then takes
 * the mutex again. A signal with nobody waiting is lost (no memory: that is
 * what a semaphore is for). Waiters are woken in FIFO order.
 */
#ifndef KERNEL_CONDVAR_H
#define KERNEL_CONDVAR_H

#include <stdbool.h>

#include "kernel/sync/mutex.h"
#include "kernel/sync/waitqueue.h"

struct condvar {
	struct waitqueue wq;
	uint32_t nr_signals, nr_lost;	/* signals/broadcasts sent; those that found nobody */
};

#define CONDVAR_INIT { .wq = WAITQUEUE_INIT }

void condvar_init(struct condvar *c);
/*
 * Wait on @c; the caller must hold @m. MUTEX_OK: signalled, @m held again.
 * MUTEX_STOPPED: *@stop became true, and @m is NOT held. MUTEX_NOT_OWNER:
 * the caller did not hold @m (nothing done).
 */
enum mutex_result cond_wait(struct condvar *c, struct mutex *m, const volatile bool *stop);
/* Wake the first waiter / every waiter; returns how many were woken. */
int cond_signal(struct condvar *c);
int cond_broadcast(struct condvar *c);

/* cond_wait's first half for a given task (host tests): queue @e, release @m. */
enum mutex_result cond_queue_and_unlock(struct condvar *c, struct mutex *m, struct wait_entry *e,
					struct task *t);

#endif
