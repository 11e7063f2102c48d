/*
 * Counting semaphores (POSIX sem_post/sem_wait semantics, rt-app's
 * sem_post/sem_wait events): a post with nobody waiting is remembered in
 * the count; a post with waiters hands its unit straight to the first one
 * (FIFO), so a later sem_wait cannot steal it.
 */
#ifndef KERNEL_SEMAPHORE_H
#define KERNEL_SEMAPHORE_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/sync/waitqueue.h"

struct semaphore {
	struct waitqueue wq;		/* wq.lock guards count */
	uint32_t count;
};

#define SEMAPHORE_INIT(n) { .wq = WAITQUEUE_INIT, .count = (n) }

void semaphore_init(struct semaphore *s, uint32_t count);
/* Take one unit, sleeping while there is none; false if *@stop ended the wait. */
bool sem_down(struct semaphore *s, const volatile bool *stop);
void sem_up(struct semaphore *s);

/* sem_down's first half for a given task (host tests): true if a unit was taken, else queued on @e. */
bool sem_down_or_queue(struct semaphore *s, struct wait_entry *e, struct task *t);

#endif
