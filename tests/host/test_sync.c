/*
 * The kernel's sleeping synchronisation objects (kernel/sync/waitqueue.c,
 * mutex.c, condvar.c, task_barrier.c, semaphore.c) on a live host
 * scheduler, driven through their non-blocking halves with tasks that do
 * not run: who is queued, in which order, who owns what, and that the
 * hand-over really wakes the task (wake_up() moves it off TASK_SLEEPING).
 * The sleeping halves run on SMP in the kernel's `stress` (sync workers).
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "ktest.h"
#include "host_sched.h"
#include "arch/cpu.h"
#include "kernel/sync/condvar.h"
#include "kernel/sync/mutex.h"
#include "kernel/pack/pack.h"
#include "kernel/sched/sched.h"
#include "kernel/sync/semaphore.h"
#include "kernel/sync/task_barrier.h"
#include "kernel/sync/waitqueue.h"

#define NT 6
static struct task t[NT];
static struct wait_entry we[NT];

/* A 4-CPU machine, every CPU idle; t[i] asleep on CPU 0. */
static void machine(void)
{
	host_make_topology(&sched_topo, 4);
	topology_build(&sched_topo, &policy_off);
	sched_init(4);
	for (int c = 0; c < 4; c++) {
		host_set_cpu_id(c);
		sched_init_cpu(c);
		sched_cpu_online(c);
	}
	host_set_cpu_id(0);
	for (int i = 0; i < NT; i++) {
		cpumask_t all = cpumask_from_u32(0xf);

		memset(&t[i], 0, sizeof(t[i]));
		t[i].tid = 100 + (uint32_t)i;
		strcpy(t[i].name, "sync");
		se_init(&t[i].se, 0);
		t[i].sched_class = sched_class_of_policy(SCHED_OTHER);
		pelt_init(&t[i].se.avg, host_fake_now);
		task_set_cpus(&t[i], &all);
		t[i].state = TASK_SLEEPING;
		memset(&we[i], 0, sizeof(we[i]));
	}
}

static bool asleep(int i)
{
	return t[i].state == TASK_SLEEPING;
}

KT_CASE(waitqueue_wakes_in_fifo_order_and_hands_data)
{
	struct waitqueue wq = WAITQUEUE_INIT;
	unsigned long flags;

	machine();
	flags = spin_lock_irqsave(&wq.lock);
	for (int i = 0; i < 3; i++)
		wq_add_locked(&wq, &we[i], &t[i]);
	KT_ASSERT_EQ(wq.nr_waiters, 3u);
	KT_ASSERT(wq_wake_one_locked(&wq, 42) == &t[0]);
	spin_unlock_irqrestore(&wq.lock, flags);
	KT_ASSERT(we[0].woken && we[0].data == 42);
	KT_ASSERT(!asleep(0) && asleep(1) && asleep(2));
	KT_ASSERT(!we[1].woken);
	KT_ASSERT_EQ(wq_wake_all(&wq), 2);
	KT_ASSERT(!asleep(1) && !asleep(2) && we[1].woken && we[2].woken);
	KT_ASSERT(wq.head == NULL && wq.tail == NULL && wq.nr_waiters == 0);
	KT_ASSERT_EQ(wq_wake_one(&wq), 0);
}

KT_CASE(mutex_hands_off_to_the_first_waiter)
{
	struct mutex m = MUTEX_INIT;

	machine();
	KT_ASSERT(mutex_lock_or_queue(&m, &we[0], &t[0]));
	KT_ASSERT(mutex_owner(&m) == &t[0]);
	KT_ASSERT(!mutex_lock_or_queue(&m, &we[1], &t[1]));
	KT_ASSERT(!mutex_lock_or_queue(&m, &we[2], &t[2]));
	KT_ASSERT_EQ(m.nr_contended, 2u);
	/* Only the owner may unlock. */
	KT_ASSERT_EQ(mutex_unlock_for(&m, &t[2]), MUTEX_NOT_OWNER);
	KT_ASSERT(mutex_owner(&m) == &t[0] && asleep(1));
	KT_ASSERT_EQ(mutex_unlock_for(&m, &t[0]), MUTEX_OK);
	/* t1 owns it before it runs: nobody can overtake it. */
	KT_ASSERT(mutex_owner(&m) == &t[1] && !asleep(1) && asleep(2) && we[1].woken);
	KT_ASSERT(!mutex_lock_or_queue(&m, &we[3], &t[3]));
	KT_ASSERT_EQ(mutex_unlock_for(&m, &t[1]), MUTEX_OK);
	KT_ASSERT(mutex_owner(&m) == &t[2] && !asleep(2) && asleep(3));
	KT_ASSERT_EQ(mutex_unlock_for(&m, &t[2]), MUTEX_OK);
	KT_ASSERT_EQ(mutex_unlock_for(&m, &t[3]), MUTEX_OK);
	KT_ASSERT(mutex_owner(&m) == NULL && m.wq.nr_waiters == 0);
	KT_ASSERT_EQ(m.nr_handoffs, 3u);
	KT_ASSERT_EQ(mutex_unlock_for(&m, &t[3]), MUTEX_NOT_OWNER);
}

KT_CASE(cond_wait_releases_the_mutex_and_signal_wakes_one)
{
	struct mutex m = MUTEX_INIT;
	struct condvar c = CONDVAR_INIT;
	struct wait_entry mw;

	machine();
	/* Not holding the mutex: refused, nothing queued. */
	KT_ASSERT_EQ(cond_queue_and_unlock(&c, &m, &we[0], &t[0]), MUTEX_NOT_OWNER);
	KT_ASSERT_EQ(c.wq.nr_waiters, 0u);
	KT_ASSERT(mutex_lock_or_queue(&m, &mw, &t[0]));
	KT_ASSERT_EQ(cond_queue_and_unlock(&c, &m, &we[0], &t[0]), MUTEX_OK);
	KT_ASSERT(mutex_owner(&m) == NULL);
	KT_ASSERT(mutex_lock_or_queue(&m, &mw, &t[1]));
	KT_ASSERT_EQ(cond_queue_and_unlock(&c, &m, &we[1], &t[1]), MUTEX_OK);
	KT_ASSERT_EQ(c.wq.nr_waiters, 2u);
	KT_ASSERT_EQ(cond_signal(&c), 1);
	KT_ASSERT(!asleep(0) && asleep(1));
	KT_ASSERT_EQ(cond_broadcast(&c), 1);
	KT_ASSERT(!asleep(1));
	/* Nobody waits: the signal is lost (counted). */
	KT_ASSERT_EQ(cond_signal(&c), 0);
	KT_ASSERT_EQ(c.nr_signals, 3u);
	KT_ASSERT_EQ(c.nr_lost, 1u);
}

KT_CASE(cond_broadcast_wakes_every_waiter)
{
	struct mutex m = MUTEX_INIT;
	struct condvar c = CONDVAR_INIT;
	struct wait_entry mw;

	machine();
	for (int i = 0; i < 3; i++) {
		KT_ASSERT(mutex_lock_or_queue(&m, &mw, &t[i]));
		KT_ASSERT_EQ(cond_queue_and_unlock(&c, &m, &we[i], &t[i]), MUTEX_OK);
	}
	KT_ASSERT_EQ(cond_broadcast(&c), 3);
	KT_ASSERT(!asleep(0) && !asleep(1) && !asleep(2));
	KT_ASSERT_EQ(c.wq.nr_waiters, 0u);
	KT_ASSERT_EQ(c.nr_lost, 0u);
}

KT_CASE(barrier_releases_all_on_the_last_arrival_and_rearms)
{
	struct task_barrier b;

	machine();
	task_barrier_init(&b, 3);
	KT_ASSERT_EQ(task_barrier_arrive(&b, &we[0], &t[0]), BARRIER_WAITED);
	KT_ASSERT_EQ(task_barrier_arrive(&b, &we[1], &t[1]), BARRIER_WAITED);
	KT_ASSERT(asleep(0) && asleep(1) && b.arrived == 2);
	KT_ASSERT_EQ(task_barrier_arrive(&b, &we[2], &t[2]), BARRIER_LAST);
	KT_ASSERT(!asleep(0) && !asleep(1) && we[0].woken && we[1].woken);
	KT_ASSERT(b.arrived == 0 && b.generation == 1 && we[0].data == 1);
	/* The next round starts empty. */
	KT_ASSERT_EQ(task_barrier_arrive(&b, &we[3], &t[3]), BARRIER_WAITED);
	KT_ASSERT(asleep(3) && b.arrived == 1);
}

KT_CASE(semaphore_remembers_posts_and_hands_units_to_waiters)
{
	struct semaphore s = SEMAPHORE_INIT(0);

	machine();
	sem_up(&s);
	sem_up(&s);
	KT_ASSERT_EQ(s.count, 2u);
	KT_ASSERT(sem_down_or_queue(&s, &we[0], &t[0]));
	KT_ASSERT(sem_down_or_queue(&s, &we[1], &t[1]));
	KT_ASSERT(!sem_down_or_queue(&s, &we[2], &t[2]));
	KT_ASSERT(!sem_down_or_queue(&s, &we[3], &t[3]));
	KT_ASSERT_EQ(s.count, 0u);
	sem_up(&s);
	/* Handed over: the count stays 0, the first waiter has its unit. */
	KT_ASSERT(!asleep(2) && asleep(3) && s.count == 0 && we[2].data == 1);
	sem_up(&s);
	sem_up(&s);
	KT_ASSERT(!asleep(3) && s.count == 1);
}

/* Priority inheritance (kernel/sync/mutex.c): the owner runs at its top waiter's RT priority, and drops back. */
KT_CASE(mutex_owner_inherits_the_top_waiters_priority_and_drops_back)
{
	struct mutex m = MUTEX_INIT;

	machine();
	KT_ASSERT_EQ(task_setscheduler(&t[1], SCHED_FIFO, 50), 0);
	KT_ASSERT_EQ(task_setscheduler(&t[2], SCHED_RR, 30), 0);
	KT_ASSERT(mutex_lock_or_queue(&m, &we[0], &t[0]));
	KT_ASSERT_EQ(t[0].prio, 0);
	KT_ASSERT(!mutex_lock_or_queue(&m, &we[2], &t[2]));
	KT_ASSERT_EQ(t[0].prio, 30);
	KT_ASSERT(!mutex_lock_or_queue(&m, &we[1], &t[1]));
	KT_ASSERT_EQ(t[0].prio, 50);
	KT_ASSERT(t[0].sched_class == sched_class_of_policy(SCHED_FIFO));
	KT_ASSERT_EQ(t[0].policy, SCHED_OTHER);	/* what the user set is kept */
	/* Unlock: to the highest waiter (t[1], queued after t[2]); t[0] drops back to the fair class. */
	KT_ASSERT_EQ(mutex_unlock_for(&m, &t[0]), MUTEX_OK);
	KT_ASSERT(mutex_owner(&m) == &t[1]);
	KT_ASSERT_EQ(t[0].prio, 0);
	KT_ASSERT(t[0].sched_class == sched_class_of_policy(SCHED_OTHER));
	/* t[1] (50) owns it with t[2] (30) waiting: nothing to inherit above its own. */
	KT_ASSERT_EQ(t[1].prio, 50);
	KT_ASSERT_EQ(mutex_unlock_for(&m, &t[1]), MUTEX_OK);
	KT_ASSERT(mutex_owner(&m) == &t[2]);
	KT_ASSERT_EQ(mutex_unlock_for(&m, &t[2]), MUTEX_OK);
}

/*
 * A prio_none mutex (POSIX's PTHREAD_PRIO_NONE, rt-app's without
 * pi_enabled) lends its waiters' priority to nobody, and a chain of owners
 * stops there; hand-off still goes to the highest waiter.
 */
KT_CASE(a_prio_none_mutex_lends_no_priority)
{
	struct mutex m1 = MUTEX_INIT, m2 = MUTEX_INIT;

	machine();
	m1.prio_none = true;
	KT_ASSERT_EQ(task_setscheduler(&t[1], SCHED_FIFO, 50), 0);
	KT_ASSERT_EQ(task_setscheduler(&t[2], SCHED_FIFO, 70), 0);
	KT_ASSERT(mutex_lock_or_queue(&m1, &we[0], &t[0]));	/* t0 holds m1 (no inheritance) */
	KT_ASSERT(mutex_lock_or_queue(&m2, &we[1], &t[1]));	/* t1 (50) holds m2 ... */
	KT_ASSERT(!mutex_lock_or_queue(&m1, &we[3], &t[1]));	/* ... and waits on m1 */
	KT_ASSERT_EQ(t[0].prio, 0);
	KT_ASSERT(!mutex_lock_or_queue(&m2, &we[2], &t[2]));	/* t2 (70) waits on m2 */
	KT_ASSERT_EQ(t[1].prio, 70);	/* m2 lends */
	KT_ASSERT_EQ(t[0].prio, 0);	/* m1 does not, even through the chain */
	KT_ASSERT_EQ(mutex_unlock_for(&m1, &t[0]), MUTEX_OK);
	KT_ASSERT(mutex_owner(&m1) == &t[1]);
	KT_ASSERT_EQ(mutex_unlock_for(&m1, &t[1]), MUTEX_OK);
	KT_ASSERT_EQ(mutex_unlock_for(&m2, &t[1]), MUTEX_OK);
	KT_ASSERT(mutex_owner(&m2) == &t[2]);
	KT_ASSERT_EQ(t[1].prio, 50);
	KT_ASSERT_EQ(mutex_unlock_for(&m2, &t[2]), MUTEX_OK);
}

KT_CASE(mutex_inheritance_follows_a_chain_of_owners)
{
	struct mutex m1 = MUTEX_INIT, m2 = MUTEX_INIT;

	machine();
	KT_ASSERT_EQ(task_setscheduler(&t[2], SCHED_FIFO, 70), 0);
	KT_ASSERT(mutex_lock_or_queue(&m1, &we[0], &t[0]));	/* t0 holds m1 */
	KT_ASSERT(mutex_lock_or_queue(&m2, &we[1], &t[1]));	/* t1 holds m2 ... */
	KT_ASSERT(!mutex_lock_or_queue(&m1, &we[3], &t[1]));	/* ... and waits on m1 */
	KT_ASSERT(!mutex_lock_or_queue(&m2, &we[2], &t[2]));	/* t2 (70) waits on m2 */
	KT_ASSERT_EQ(t[1].prio, 70);
	KT_ASSERT_EQ(t[0].prio, 70);	/* through t1, which waits on t0's mutex */
	KT_ASSERT_EQ(mutex_unlock_for(&m1, &t[0]), MUTEX_OK);
	KT_ASSERT_EQ(t[0].prio, 0);
	KT_ASSERT(mutex_owner(&m1) == &t[1]);
	KT_ASSERT_EQ(t[1].prio, 70);	/* still lends m2 to t2 */
	KT_ASSERT_EQ(mutex_unlock_for(&m2, &t[1]), MUTEX_OK);
	KT_ASSERT_EQ(t[1].prio, 0);
	KT_ASSERT(mutex_owner(&m2) == &t[2]);
	KT_ASSERT_EQ(mutex_unlock_for(&m1, &t[1]), MUTEX_OK);
	KT_ASSERT_EQ(mutex_unlock_for(&m2, &t[2]), MUTEX_OK);
}

KT_CASE(setscheduler_refuses_bad_policies_and_priorities)
{
	machine();
	KT_ASSERT_EQ(task_setscheduler(&t[0], SCHED_FIFO, 0), -1);
	KT_ASSERT_EQ(task_setscheduler(&t[0], SCHED_RR, 100), -1);
	KT_ASSERT_EQ(task_setscheduler(&t[0], SCHED_OTHER, 5), -1);
	KT_ASSERT_EQ(task_setscheduler(&t[0], SCHED_DEADLINE, 0), -1);
	KT_ASSERT_EQ(t[0].policy, SCHED_OTHER);
	KT_ASSERT_EQ(t[0].prio, 0);
	KT_ASSERT(t[0].sched_class == sched_class_of_policy(SCHED_OTHER));
	KT_ASSERT_EQ(task_setscheduler(&t[0], SCHED_RR, 99), 0);
	KT_ASSERT_EQ(t[0].prio, 99);
	KT_ASSERT_EQ(task_setscheduler(&t[0], SCHED_OTHER, 0), 0);
	KT_ASSERT_EQ(t[0].prio, 0);
}
