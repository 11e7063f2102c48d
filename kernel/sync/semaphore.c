/* Counting semaphores; see include/kernel/sync/semaphore.h. */
#include "kernel/sync/semaphore.h"

#include "kernel/lib/panic.h"
#include "kernel/sched/sched.h"

void semaphore_init(struct semaphore *s, uint32_t count)
{
	waitqueue_init(&s->wq);
	s->count = count;
}

bool sem_down_or_queue(struct semaphore *s, struct wait_entry *e, struct task *t)
{
	unsigned long flags = spin_lock_irqsave(&s->wq.lock);
	bool got = s->count > 0;

	if (got)
		s->count--;
	else
		wq_add_locked(&s->wq, e, t);
	spin_unlock_irqrestore(&s->wq.lock, flags);
	return got;
}

bool sem_down(struct semaphore *s, const volatile bool *stop)
{
	struct wait_entry e;

	if (sem_down_or_queue(s, &e, current_task()))
		return true;
	return wq_sleep(&e, stop);	/* woken = the poster's unit is ours */
}

void sem_up(struct semaphore *s)
{
	unsigned long flags = spin_lock_irqsave(&s->wq.lock);

	if (!wq_wake_one_locked(&s->wq, 1)) {
		KASSERT(s->count < UINT32_MAX);
		s->count++;
	}
	spin_unlock_irqrestore(&s->wq.lock, flags);
}
