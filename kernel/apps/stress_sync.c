/*
 * Sync workers of the `stress` command; see include/kernel/apps/stress_sync.h.
 *
 * Invariants:
 * - mutex: never two tasks inside one mutex's critical section, and the
 *   owner seen inside is the task itself;
 * - condition variable: every item produced is consumed or still queued;
 * - barrier: every worker completes exactly as many rounds as the barrier
 *   counted (a round ends only when all have arrived);
 * - semaphore: units posted = units taken + units left.
 * At the end every wait is abandoned through the stop flag (and a wake-up
 * of each worker), as rt-app's end of run does. A worker that has not
 * ended STOP_TIMEOUT_NS later slept through its wake-ups: a violation (and
 * it is left unjoined), so that a lost wake-up fails the run with its
 * verdict instead of hanging the console in the join.
 */
#include "kernel/lib/random.h"
#include "kernel/apps/stress_sync.h"

#include "arch/barrier.h"
#include "kernel/sync/condvar.h"
#include "kernel/sync/mutex.h"
#include "kernel/lib/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/sync/semaphore.h"
#include "kernel/sync/task_barrier.h"
#include "kernel/time/time.h"

#define NR_MUTEX_WORKERS 6
#define NR_MUTEXES 2
#define NR_PRODUCERS 2
#define NR_CONSUMERS 3
#define NR_BARRIER_WORKERS 4
#define NR_POSTERS 2
#define NR_TAKERS 2
#define NR_SYNC_TASKS (NR_MUTEX_WORKERS + NR_PRODUCERS + NR_CONSUMERS + NR_BARRIER_WORKERS + NR_POSTERS + NR_TAKERS)
#define STOP_TIMEOUT_NS (10ull * NSEC_PER_SEC)

/* A worker's body and argument, and whether it has returned (set last, with release). */
struct sync_slot {
	void (*fn)(void *);
	uintptr_t arg;
	volatile uint32_t done;
};

static struct {
	volatile bool stop;
	struct mutex m[NR_MUTEXES];
	volatile uint32_t inside[NR_MUTEXES];
	uint32_t acquisitions, violations;
	struct mutex qlock;
	struct condvar qcond;
	uint32_t items, produced, consumed;	/* under qlock */
	struct task_barrier bar;
	uint32_t rounds[NR_BARRIER_WORKERS];
	struct semaphore sem;
	uint32_t posted, taken;
	struct task *tasks[NR_SYNC_TASKS];
	struct sync_slot slots[NR_SYNC_TASKS];
	uint32_t seed;
} ss;

static bool stopping(void)
{
	return READ_ONCE(ss.stop);
}

static void nap(uint32_t *rng, uint32_t max_us)
{
	task_sleep_ns((uint64_t)(xorshift32(rng) % max_us) * NSEC_PER_USEC);
}

static void violation(const char *what)
{
	__atomic_fetch_add(&ss.violations, 1, __ATOMIC_RELAXED);
	kprintf("stress: sync: INVARIANT BROKEN: %s\n", what);
}

static void mutex_worker(void *arg)
{
	uint32_t rng = ss.seed ^ (uint32_t)(uintptr_t)arg;

	while (!stopping()) {
		int k = (int)(xorshift32(&rng) % NR_MUTEXES);

		if (mutex_lock_stoppable(&ss.m[k], &ss.stop) != MUTEX_OK)
			break;
		if (__atomic_add_fetch(&ss.inside[k], 1, __ATOMIC_ACQ_REL) != 1)
			violation("two tasks inside one mutex");
		if (mutex_owner(&ss.m[k]) != current_task())
			violation("a mutex held by someone else inside its critical section");
		__atomic_fetch_add(&ss.acquisitions, 1, __ATOMIC_RELAXED);
		if (xorshift32(&rng) % 4 == 0)
			nap(&rng, 200);		/* sleep holding it: waiters must queue */
		else
			for (volatile int i = 0; i < 200; i++)
				;
		__atomic_sub_fetch(&ss.inside[k], 1, __ATOMIC_ACQ_REL);
		mutex_unlock(&ss.m[k]);
		nap(&rng, 300);
	}
}

static void producer(void *arg)
{
	uint32_t rng = ss.seed ^ (uint32_t)(uintptr_t)arg;

	while (!stopping()) {
		if (mutex_lock_stoppable(&ss.qlock, &ss.stop) != MUTEX_OK)
			break;
		ss.items++;
		ss.produced++;
		if (xorshift32(&rng) % 8 == 0)
			cond_broadcast(&ss.qcond);
		else
			cond_signal(&ss.qcond);
		mutex_unlock(&ss.qlock);
		nap(&rng, 500);
	}
}

static void consumer(void *arg)
{
	(void)arg;
	if (mutex_lock_stoppable(&ss.qlock, &ss.stop) != MUTEX_OK)
		return;
	for (;;) {
		while (ss.items == 0)
			if (cond_wait(&ss.qcond, &ss.qlock, &ss.stop) != MUTEX_OK)
				return;		/* stopped: the mutex is not held */
		ss.items--;
		ss.consumed++;
		if (stopping())
			break;
	}
	mutex_unlock(&ss.qlock);
}

static void barrier_worker(void *arg)
{
	int i = (int)(uintptr_t)arg;
	uint32_t rng = ss.seed ^ (uint32_t)i * 77u;

	while (task_barrier_wait(&ss.bar, &ss.stop) != BARRIER_STOPPED) {
		ss.rounds[i]++;
		nap(&rng, 400);
	}
}

static void poster(void *arg)
{
	uint32_t rng = ss.seed ^ (uint32_t)(uintptr_t)arg;

	while (!stopping()) {
		__atomic_fetch_add(&ss.posted, 1, __ATOMIC_RELAXED);
		sem_up(&ss.sem);
		nap(&rng, 400);
	}
}

static void taker(void *arg)
{
	(void)arg;
	while (sem_down(&ss.sem, &ss.stop))
		__atomic_fetch_add(&ss.taken, 1, __ATOMIC_RELAXED);
}

static void sync_main(void *arg)
{
	struct sync_slot *slot = arg;

	slot->fn((void *)slot->arg);
	__atomic_store_n(&slot->done, 1, __ATOMIC_RELEASE);
}

void stress_sync_start(uint32_t seed, uint32_t cpus)
{
	static const struct {
		void (*fn)(void *);
		int n;
	} kinds[] = {
		{ mutex_worker, NR_MUTEX_WORKERS }, { producer, NR_PRODUCERS }, { consumer, NR_CONSUMERS },
		{ barrier_worker, NR_BARRIER_WORKERS }, { poster, NR_POSTERS }, { taker, NR_TAKERS },
	};
	int t = 0;

	ss.stop = false;
	ss.seed = seed | 1;
	for (int k = 0; k < NR_MUTEXES; k++) {
		mutex_init(&ss.m[k]);
		ss.inside[k] = 0;
	}
	ss.acquisitions = ss.violations = 0;
	mutex_init(&ss.qlock);
	condvar_init(&ss.qcond);
	ss.items = ss.produced = ss.consumed = 0;
	task_barrier_init(&ss.bar, NR_BARRIER_WORKERS);
	for (int i = 0; i < NR_BARRIER_WORKERS; i++)
		ss.rounds[i] = 0;
	semaphore_init(&ss.sem, 0);
	ss.posted = ss.taken = 0;
	smp_mb();
	for (unsigned k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		for (int i = 0; i < kinds[k].n; i++, t++) {
			ss.slots[t] = (struct sync_slot){ .fn = kinds[k].fn, .arg = (uintptr_t)i };
			ss.tasks[t] = task_create("sync", sync_main, &ss.slots[t], 0, cpus);
		}
}

int stress_sync_violations(void)
{
	return (int)__atomic_load_n(&ss.violations, __ATOMIC_RELAXED);
}

/* Some worker has not ended (its task is still set after the stop's joins). */
static bool stuck_any(void)
{
	for (int t = 0; t < NR_SYNC_TASKS; t++)
		if (ss.tasks[t])
			return true;
	return false;
}

int stress_sync_stop(void)
{
	uint64_t deadline = arch_now_ns() + STOP_TIMEOUT_NS;

	__atomic_store_n(&ss.stop, true, __ATOMIC_RELEASE);
	for (int t = 0; t < NR_SYNC_TASKS; t++)
		if (ss.tasks[t])
			wake_up(ss.tasks[t]);
	for (bool all = false; !all && arch_now_ns() < deadline;) {
		all = true;
		for (int t = 0; t < NR_SYNC_TASKS; t++)
			if (ss.tasks[t] && !__atomic_load_n(&ss.slots[t].done, __ATOMIC_ACQUIRE))
				all = false;
		if (!all)
			task_sleep_ns(10 * NSEC_PER_MSEC);
	}
	for (int t = 0; t < NR_SYNC_TASKS; t++) {
		if (!ss.tasks[t])
			continue;
		if (!__atomic_load_n(&ss.slots[t].done, __ATOMIC_ACQUIRE)) {
			kprintf("stress: sync: worker %d (task %u, %s) did not end after the stop\n", t,
				(unsigned)ss.tasks[t]->tid, task_state_name(ss.tasks[t]));
			violation("a worker slept through the stop (a lost wake-up?)");
			continue;	/* left as it is: joining it would hang */
		}
		task_join(ss.tasks[t]);
		ss.tasks[t] = NULL;
	}
	/* With a worker stuck the objects are mid-use: their end checks would mean nothing. */
	if (!stuck_any()) {
		uint32_t min_rounds = UINT32_MAX, max_rounds = 0;

		for (int k = 0; k < NR_MUTEXES; k++)
			if (mutex_owner(&ss.m[k]) || ss.m[k].wq.nr_waiters)
				violation("a mutex still held or waited on after every worker ended");
		if (ss.produced != ss.consumed + ss.items)
			violation("condition variable: items produced != consumed + queued");
		for (int i = 0; i < NR_BARRIER_WORKERS; i++) {
			if (ss.rounds[i] < min_rounds)
				min_rounds = ss.rounds[i];
			if (ss.rounds[i] > max_rounds)
				max_rounds = ss.rounds[i];
		}
		if (min_rounds != max_rounds || max_rounds != ss.bar.generation)
			violation("barrier: workers completed different numbers of rounds");
		if (ss.posted != ss.taken + ss.sem.count)
			violation("semaphore: units posted != taken + left");
	}
	kprintf("stress: sync mutex_acquisitions=%u mutex_contended=%u cond_produced=%u cond_consumed=%u "
		"barrier_rounds=%u sem_posted=%u sem_taken=%u violations=%u\n",
		(unsigned)ss.acquisitions, (unsigned)(ss.m[0].nr_contended + ss.m[1].nr_contended),
		(unsigned)ss.produced, (unsigned)ss.consumed, (unsigned)ss.bar.generation, (unsigned)ss.posted,
		(unsigned)ss.taken, (unsigned)ss.violations);
	return (int)ss.violations;
}
