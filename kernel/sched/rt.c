/*
 * The real-time class: SCHED_FIFO and SCHED_RR. The contract is in
 * include/kernel/sched/rt.h; the table of operations in
 * include/kernel/sched/class.h. Linux's kernel/sched/rt.c is the model for
 * the semantics (push, pull, throttling), not the code.
 */
#include "kernel/sched/rt.h"

#include <string.h>

#include "arch/barrier.h"
#include "arch/cpu.h"
#include "kernel/lib/format.h"
#include "kernel/lib/panic.h"
#include "kernel/lib/printk.h"
#include "kernel/sched/cpupri.h"
#include "kernel/sched/sched_internal.h"
#include "kernel/sched/topology.h"

uint64_t sched_rr_timeslice_ns = 100 * NSEC_PER_MSEC;
int64_t sched_rt_runtime_ns = 950 * (int64_t)NSEC_PER_MSEC;
uint64_t sched_rt_period_ns = NSEC_PER_SEC;

cpumask_t rt_overloaded;
static uint32_t invariant_breaks;

uint32_t rt_invariant_breaks(void)
{
	return __atomic_load_n(&invariant_breaks, __ATOMIC_RELAXED);
}

static struct sched_class rt_sched_class;

static struct task *task_of_rt(struct rt_list *n)
{
	return (struct task *)((char *)n - __builtin_offsetof(struct task, rt));
}

static bool task_is_rr(const struct task *p)
{
	return p->policy == SCHED_RR;
}

/* ------------------------------------------------------------ queues */

static void list_init(struct rt_list *h)
{
	h->next = h;
	h->prev = h;
}

static void list_add_between(struct rt_list *n, struct rt_list *prev, struct rt_list *next)
{
	n->prev = prev;
	n->next = next;
	prev->next = n;
	next->prev = n;
}

static void list_del(struct rt_list *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	n->next = n;
	n->prev = n;
}

/* The invariant check's timestamps (debug kernels only: a clock read on the wake-up path otherwise). */
#ifdef CONFIG_SCHED_DEBUG
#define rt_stamp(field) ((field) = arch_now_ns())
#else
#define rt_stamp(field) ((void)0)
#endif

/* Ask for @what (RT_WORK_*) after @rq's unlock; @rq locked. */
static void rt_request(struct rq *rq, unsigned int what)
{
	__atomic_fetch_or(&rq->rt.work, (uint8_t)what, __ATOMIC_RELAXED);
	rq->class_work |= (uint8_t)(1u << rt_sched_class.idx);
}

/* The highest set bit of @bm below @below (0: none). */
static int bitmap_highest_below(const uint32_t *bm, int below)
{
	for (int w = (below - 1) / 32; w >= 0 && below > 0; w--) {
		uint32_t bits = bm[w];

		if (w == (below - 1) / 32 && (below - 1) % 32 != 31)
			bits &= (1u << ((below - 1) % 32 + 1)) - 1;
		if (bits)
			return w * 32 + 31 - __builtin_clz(bits);
	}
	return 0;
}

static int bitmap_highest(const uint32_t *bm)
{
	return bitmap_highest_below(bm, RT_NR_PRIO);
}

/*
 * What rq->rt.waiting should be, with @curr the task that runs (or is
 * about to; NULL: a lower class's): the highest priority of a queued
 * migratory task, unless @curr is the only one of it and runs. Throttled,
 * no RT task runs whatever curr is (the switch away from it may not have
 * come yet): every one waits, and a puller may take the highest. (Tested
 * last: the common path pays nothing for it.)
 */
static inline __attribute__((always_inline)) int waiting_level(const struct rq *rq, const struct task *curr)
{
	int h = bitmap_highest(rq->rt.mig_bitmap);

	if (h && curr && curr->rt.on_list && curr->prio == h && curr->nr_cpus_allowed > 1 &&
	    rq->rt.nr_mig_prio[h] == 1 && !rq->rt.throttled)
		h = bitmap_highest_below(rq->rt.mig_bitmap, h);
	return h;
}

/* Inlined: on every RT pick, enqueue and dequeue (the switch and wake-up's cost, make bench). */
static inline __attribute__((always_inline)) void update_waiting(struct rq *rq, const struct task *curr)
{
	/* Pinned tasks only (or none): 0 without the bitmap scan (a counter, kept for this: ~20 per pick). */
	WRITE_ONCE(rq->rt.waiting, rq->rt.nr_migratory ? waiting_level(rq, curr) : 0);
}

/* The highest queued priority changed (or may have): the bitmap says which, cpupri is told. */
static void update_highest(struct rq *rq)
{
	int h = bitmap_highest(rq->rt.bitmap);

	if (h != rq->rt.highest)
		rt_stamp(rq->rt.level_since_ns);	/* not rq->clock: stale here (a migration's source) */
	rq->rt.highest = h;
	cpupri_set(rq->cpu, h);
}

/*
 * Overloaded (Linux's rt_overloaded): a task waits here and one of the
 * queue may run elsewhere. Tasks pinned here have nowhere to go: no push
 * or pull pass for them (two pinned FIFO tasks switch in 388 instructions
 * on qemu-tc2, the fair class 355).
 */
static void update_overload(struct rq *rq)
{
	bool over = rq->rt.nr_running >= 2 && rq->rt.nr_migratory > 0;

	if (over == rq->rt.overloaded)
		return;
	rq->rt.overloaded = over;
	if (over)
		cpumask_set_atomic(&rt_overloaded, rq->cpu);
	else
		cpumask_clear_atomic(&rt_overloaded, rq->cpu);
}

/* @p (queued, at p->prio) counts as migratory (@d = 1) or no longer (-1). */
static void account_migratory(struct rq *rq, const struct task *p, int d)
{
	uint16_t *n = &rq->rt.nr_mig_prio[p->prio];

	rq->rt.nr_migratory += (unsigned int)d;
	*n = (uint16_t)(*n + d);
	if (*n)
		rq->rt.mig_bitmap[p->prio / 32] |= 1u << (p->prio % 32);
	else
		rq->rt.mig_bitmap[p->prio / 32] &= ~(1u << (p->prio % 32));
}

static void rt_init_rq(struct rq *rq)
{
	memset(&rq->rt, 0, sizeof(rq->rt));
	for (int i = 0; i < RT_NR_PRIO; i++)
		list_init(&rq->rt.queue[i]);
	rq->rt.period_start = UINT64_C(1) << 63;	/* ended long ago: the first RT work starts one */
	if (rq->cpu == 0) {	/* sched_init() sets up CPU 0 first: the machine-wide state with it */
		cpupri_init();
		memset(&rt_overloaded, 0, sizeof(rt_overloaded));
	}
}

static void rt_enqueue(struct rq *rq, struct task *p, int flags)
{
	struct rt_list *q = &rq->rt.queue[p->prio];

	KASSERT_DEBUG(p->prio >= RT_PRIO_MIN && p->prio <= RT_PRIO_MAX && !p->rt.on_list);
	if (flags & ENQ_HEAD)
		list_add_between(&p->rt.node, q, q->next);
	else
		list_add_between(&p->rt.node, q->prev, q);
	p->rt.on_list = true;
	rq->rt.bitmap[p->prio / 32] |= 1u << (p->prio % 32);
	rq->rt.nr_running++;
	if (p->nr_cpus_allowed > 1)
		account_migratory(rq, p, 1);
	if (p->prio > rq->rt.highest) {	/* the new top: no bitmap scan needed */
		rt_stamp(rq->rt.level_since_ns);
		rq->rt.highest = p->prio;
		cpupri_set(rq->cpu, p->prio);
	}
	update_overload(rq);
	update_waiting(rq, rq->curr);
	/* A second RT task here: one of the two may run elsewhere (push after the unlock). */
	if (rq->rt.overloaded)
		rt_request(rq, RT_WORK_PUSH);
}

static void rt_dequeue(struct rq *rq, struct task *p, int flags)
{
	struct rt_list *q = &rq->rt.queue[p->prio];

	(void)flags;
	KASSERT_DEBUG(p->rt.on_list && rq->rt.nr_running > 0);
	list_del(&p->rt.node);
	p->rt.on_list = false;
	if (q->next == q)
		rq->rt.bitmap[p->prio / 32] &= ~(1u << (p->prio % 32));
	rq->rt.nr_running--;
	if (p->nr_cpus_allowed > 1)
		account_migratory(rq, p, -1);
	if (p->prio == rq->rt.highest)
		update_highest(rq);
	update_overload(rq);
	update_waiting(rq, rq->curr);
	/*
	 * This CPU's priority dropped (the top task left): a task waiting
	 * elsewhere may now outrank it, pull after the unlock. A lower task
	 * leaving changes nothing a pull could fix.
	 */
	if (rq->rt.highest < p->prio && !cpumask_empty(&rt_overloaded))
		rt_request(rq, RT_WORK_PULL);
}

static void requeue_tail(struct rq *rq, struct task *p)
{
	struct rt_list *q = &rq->rt.queue[p->prio];

	list_del(&p->rt.node);
	list_add_between(&p->rt.node, q->prev, q);
}

/* ------------------------------------------------------------ running */

/*
 * Start a new throttling period if the last has ended; true if one was
 * throttled. Called at the ticks that find an RT task running and by the
 * period timer. While RT work goes on, periods follow one another. When a
 * whole period has passed without it, a new one starts at this tick (as
 * Linux's period timer, idle after a period without RT work, is kicked by
 * the next RT enqueue): the runtime is measured from the work's start (its
 * first tick, <= 1 tick later), not from a boundary set by when the CPU
 * booted. Kept out of the wake-up and switch paths.
 */
static bool period_roll(struct rq *rq, uint64_t now)
{
	bool was = rq->rt.throttled;
	uint64_t since = now - rq->rt.period_start;

	if (since < sched_rt_period_ns)
		return false;
	rq->rt.period_start = since >= 2 * sched_rt_period_ns ? now : now - since % sched_rt_period_ns;
	rq->rt.rt_time = 0;
	rq->rt.throttled = false;
	if (was)
		update_waiting(rq, rq->curr);	/* curr, if it is RT, runs again: it no longer waits */
	return was;
}

static void rt_update_curr(struct rq *rq, uint64_t now)
{
	struct task *curr = rq->curr;
	uint64_t delta;

	if (curr->sched_class != &rt_sched_class || (int64_t)(now - curr->rt.exec_start) <= 0)
		return;
	delta = now - curr->rt.exec_start;
	curr->rt.exec_start = now;
	curr->se.sum_exec_runtime += delta;
	rq->rt.rt_time += delta;
	if (task_is_rr(curr))
		curr->rt.time_slice = curr->rt.time_slice > delta ? curr->rt.time_slice - delta : 0;
}

static void rt_period_timer_fn(struct timer *t)
{
	struct rq *rq = t->arg;

	spin_lock(&rq->lock);
	if (period_roll(rq, arch_now_ns()) && rq->rt.nr_running)
		rq->need_resched = true;	/* its RT tasks may run again: at this interrupt's exit */
	spin_unlock(&rq->lock);
}

/* Used up its runtime: the class steps aside until the period ends (from this CPU's own tick). */
static void check_throttle(struct rq *rq, uint64_t now)
{
	period_roll(rq, now);
	if (sched_rt_runtime_ns < 0 || rq->rt.throttled || rq->rt.rt_time <= (uint64_t)sched_rt_runtime_ns)
		return;
	rq->rt.throttled = true;
	update_waiting(rq, NULL);	/* every RT task here waits now */
	rq->rt.nr_throttled++;
	rq->need_resched = true;
	timer_setup(&rq->rt_period_timer, rt_period_timer_fn, rq);
	timer_arm(&rq->rt_period_timer, rq->rt.period_start + sched_rt_period_ns);
}

static struct task *rt_pick_next(struct rq *rq, struct task *prev, bool yield, uint64_t now)
{
	struct task *next;
	int h = rq->rt.highest;

	if (yield && prev->sched_class == &rt_sched_class && prev->rt.on_list)
		requeue_tail(rq, prev);
	if (!h || rq->rt.throttled) {
		update_waiting(rq, NULL);
		return NULL;
	}
	next = task_of_rt(rq->rt.queue[h].next);
	if (next != prev)
		next->rt.exec_start = now;
	update_waiting(rq, next);
	if (rq->rt.overloaded)	/* one waits: it may run elsewhere */
		rt_request(rq, RT_WORK_PUSH);
	return next;
}

static void rt_put_prev(struct rq *rq, struct task *prev)
{
	(void)prev;
	/*
	 * Still queued, yet a lower class runs: throttled. (A task that left
	 * the queue asked for its pull in rt_dequeue().)
	 */
	if (!cpumask_empty(&rt_overloaded))
		rt_request(rq, RT_WORK_PULL);
}

static void rt_set_curr(struct rq *rq, struct task *p, uint64_t now)
{
	p->rt.exec_start = now;
	update_waiting(rq, p);
}

static void rt_tick(struct rq *rq, struct task *curr, uint64_t now)
{
	rt_update_curr(rq, now);
	check_throttle(rq, now);
	/* A waiting task a push missed (it raced with a CPU's drop in priority): try again. */
	if (rq->rt.overloaded)
		rt_request(rq, RT_WORK_PUSH);
	if (!task_is_rr(curr) || curr->rt.time_slice)
		return;
	curr->rt.time_slice = sched_rr_timeslice_ns;
	/* Slice over: behind the others of its priority, if there are any (sched(7)). */
	if (curr->rt.node.next != curr->rt.node.prev) {
		requeue_tail(rq, curr);
		update_waiting(rq, curr);	/* no longer alone at the head: its priority waits */
		rq->need_resched = true;
	}
}

static void rt_set_cpus_allowed(struct rq *rq, struct task *p, int old_weight)
{
	int d = (p->nr_cpus_allowed > 1) - (old_weight > 1);

	if (!d)
		return;
	account_migratory(rq, p, d);
	update_overload(rq);
	update_waiting(rq, rq->curr);
	if (rq->rt.overloaded)
		rt_request(rq, RT_WORK_PUSH);
}

static bool rt_check_preempt(const struct rq *rq, const struct task *p)
{
	return p->prio > rq->curr->prio;
}

static void rt_switched_to(struct rq *rq, struct task *p)
{
	(void)rq;
	p->rt.time_slice = sched_rr_timeslice_ns;
}

/* ------------------------------------------------------------ placement */

/* The RT priority @cpu runs at, as a placement sees it: its highest queued RT task, 0 for none. */
static int cpu_rt_level(int cpu)
{
	return READ_ONCE(cpu_rq(cpu)->rt.highest);
}

/* Of @mask, @prefer if in it, else one in @prefer's cluster, else the first; -1 if empty. */
static int pick_near(const cpumask_t *mask, int prefer)
{
	if (prefer >= 0 && cpumask_test(mask, prefer))
		return prefer;
	if (prefer >= 0) {
		int cpu = cpumask_first_and(mask, &sched_topo.llc[prefer]);

		if (cpu >= 0)
			return cpu;
	}
	return cpumask_first(mask);
}

/*
 * The CPU running the lowest priority below @p's that @p may use: an idle
 * one first, else the lowest cpupri level; near @prefer (cache, cluster).
 * -1 if every CPU @p may use runs @p's priority or higher.
 */
static int find_lowest_cpu(const struct task *p, int prefer)
{
	cpumask_t allowed, m;

	cpumask_and(&allowed, &p->cpus_allowed, &sched_cpus_online);
	cpumask_and(&m, &allowed, &idle_hint);
	for (int cpu = pick_near(&m, prefer); cpu >= 0; cpu = cpumask_next(&m, cpu))
		if (cpu_idle_now(cpu))
			return cpu;
	if (cpupri_find(&allowed, p->prio, &m) < 0)
		return -1;
	return pick_near(&m, prefer);
}

/*
 * Wake-up and new task (Linux's select_task_rq_rt): stay on prev unless it
 * holds an RT task of @p's priority or higher; then the lowest-priority
 * CPU, if lower than @p.
 */
static int rt_select_rq(struct task *p, int prev_cpu, bool wakeup)
{
	int cpu;

	(void)wakeup;
	if (!task_allowed_on(p, prev_cpu)) {
		cpu = find_lowest_cpu(p, -1);
		return cpu >= 0 ? cpu : select_idlest_cpu(p, prev_cpu);
	}
	if (cpu_rt_level(prev_cpu) < p->prio || p->nr_cpus_allowed == 1)
		return prev_cpu;
	cpu = find_lowest_cpu(p, prev_cpu);
	return cpu >= 0 && cpu_rt_level(cpu) < p->prio ? cpu : prev_cpu;
}

/* ------------------------------------------------------------ push and pull */

/*
 * The highest-priority task waiting on @rq (queued, not running) that may
 * run on @dst (-1: on some other CPU), above priority @above. @rq locked.
 */
static struct task *waiting_task(struct rq *rq, int dst, int above)
{
	for (int prio = rq->rt.highest; prio > above; prio--) {
		struct rt_list *q = &rq->rt.queue[prio];

		for (struct rt_list *n = q->next; n != q; n = n->next) {
			struct task *p = task_of_rt(n);

			if (p == rq->curr)
				continue;
			if (dst >= 0 ? task_allowed_on(p, dst) : p->nr_cpus_allowed > 1)
				return p;
		}
	}
	return NULL;
}

/*
 * The highest-priority task waiting on @rq that some CPU running a lower
 * priority may take, and that CPU (*@cpu); NULL if none. Not only the top
 * waiter (Linux pushes only its first pushable task): one held by its
 * affinity to CPUs that all run higher priorities must not keep the next
 * one, free to go, waiting too. Every waiting task may be examined (each a
 * cpupri lookup): this runs only while RT tasks wait here. @rq locked.
 */
static struct task *pushable_task(struct rq *rq, int *cpu)
{
	cpumask_t m;
	/* No online CPU runs below @low: tasks of @low and under have nowhere to go (the scan stops there). */
	int low = cpupri_find(&sched_cpus_online, RT_NR_PRIO, &m);

	for (int prio = rq->rt.highest; prio > low; prio--) {
		struct rt_list *q = &rq->rt.queue[prio];

		for (struct rt_list *n = q->next; n != q; n = n->next) {
			struct task *p = task_of_rt(n);

			if (p == rq->curr || p->nr_cpus_allowed == 1)
				continue;
			*cpu = find_lowest_cpu(p, rq->cpu);
			if (*cpu >= 0 && *cpu != rq->cpu)
				return p;
		}
	}
	return NULL;
}

/* Push @rq's waiting RT tasks to CPUs running lower priorities. No lock held, IRQs off. */
static void push_tasks(struct rq *rq)
{
	for (int tries = 0; tries < 8; tries++) {
		struct task *p, *top;
		struct rq *dst;
		int cpu = -1;

		spin_lock(&rq->lock);
		top = rq->rt.overloaded ? waiting_task(rq, -1, 0) : NULL;
		if (top && top->prio > rq->curr->prio && !rq->rt.throttled) {
			/* It outranks what runs here: it preempts here instead. */
			resched_cpu(rq->cpu);
			spin_unlock(&rq->lock);
			return;
		}
		if (tries == 0)
			rt_stamp(rq->rt.push_start_ns);
		p = rq->rt.overloaded ? pushable_task(rq, &cpu) : NULL;
		if (!p)
			rt_stamp(rq->rt.push_done_ns);
		spin_unlock(&rq->lock);
		if (!p)
			return;
		dst = cpu_rq(cpu);
		double_rq_lock(rq, dst);
		/* Re-check under both locks: the hint may be stale, @p may have run or moved. */
		if (p->cpu == rq->cpu && p->on_rq && p->state == TASK_RUNNABLE && rq->curr != p &&
		    p->sched_class == &rt_sched_class && task_allowed_on(p, cpu) && dst->rt.highest < p->prio) {
			migrate_task_locked(p, rq, dst);
			rq->rt.nr_pushed++;
			double_rq_unlock(rq, dst);
			resched_cpu(cpu);
			continue;
		}
		double_rq_unlock(rq, dst);
	}
}

/* Pull waiting RT tasks that outrank what @rq runs. No lock held, IRQs off. */
static void pull_tasks_to(struct rq *rq)
{
	cpumask_t over = rt_overloaded;
	bool pulled = false;

	cpumask_clear_cpu(&over, rq->cpu);
	for_each_cpu(cpu, &over) {
		struct rq *src = cpu_rq(cpu);
		struct task *p;

		if (cpu >= sched_nr_cpus())
			break;
		/* Nothing waits there that outranks us (a hint: re-checked under the locks). */
		if (READ_ONCE(src->rt.waiting) <= READ_ONCE(rq->rt.highest))
			continue;
		/*
		 * Never wait for a busy queue: CPUs whose priority drops at once
		 * would all queue on the one overloaded CPU's lock with IRQs off
		 * (the herd Linux's RT_PUSH_IPI avoids). Its own push, at its next
		 * tick or unlock, moves the task instead.
		 */
		if (!double_rq_trylock(rq, src))
			continue;
		p = src->rt.overloaded ? waiting_task(src, rq->cpu, rq->rt.highest) : NULL;
		/* Only a task that waits because something higher runs there (else it runs there soon). */
		if (p && p->on_rq && p->state == TASK_RUNNABLE && p->prio <= src->curr->prio) {
			migrate_task_locked(p, src, rq);
			rq->rt.nr_pulled++;
			pulled = true;
		}
		double_rq_unlock(rq, src);
	}
	if (pulled)
		resched_cpu(rq->cpu);
}

static void rt_balance(struct rq *rq)
{
	/*
	 * Our overload bit or priority (set under our lock) before we read the
	 * others', as they do: a CPU that drops while a task queues elsewhere
	 * either pulls it or is seen by that CPU's push.
	 */
	unsigned int work = __atomic_exchange_n(&rq->rt.work, 0, __ATOMIC_RELAXED);

	smp_mb();
	if ((work & RT_WORK_PULL) && !cpumask_empty(&rt_overloaded))
		pull_tasks_to(rq);
	if ((work & RT_WORK_PUSH) && READ_ONCE(rq->rt.overloaded))
		push_tasks(rq);
}

/* ------------------------------------------------------------ checks */

static void rt_for_each_queued(const struct rq *rq, void (*fn)(const struct task *p, void *arg), void *arg)
{
	for (int prio = RT_PRIO_MAX; prio >= RT_PRIO_MIN; prio--) {
		const struct rt_list *q = &rq->rt.queue[prio];

		for (struct rt_list *n = q->next; n != q; n = n->next)
			fn(task_of_rt(n), arg);
	}
}

/* rt_check()'s line: built under every rq lock (sched_check_invariants), so one buffer serves. */
static char rt_broken[160];

static const char *rt_check(const struct rq *rq)
{
	unsigned int count = 0, migratory = 0;
	int waiting;

	for (int prio = 0; prio < RT_NR_PRIO; prio++) {
		const struct rt_list *q = &rq->rt.queue[prio];
		bool bit = (rq->rt.bitmap[prio / 32] >> (prio % 32)) & 1u;
		unsigned int mig = 0;

		if (bit != (q->next != q))
			return "a priority's bitmap bit disagrees with its list";
		for (struct rt_list *n = q->next; n != q; n = n->next) {
			const struct task *p = task_of_rt(n);

			if (p->prio != prio || !p->rt.on_list || p->sched_class != &rt_sched_class)
				return "a task on a priority's list is not of it";
			count++;
			mig += p->nr_cpus_allowed > 1;
		}
		if (mig != rq->rt.nr_mig_prio[prio] ||
		    ((rq->rt.mig_bitmap[prio / 32] >> (prio % 32)) & 1u) != (mig != 0))
			return "a priority's migratory count or bit";
		migratory += mig;
	}
	if (count != rq->rt.nr_running || migratory != rq->rt.nr_migratory)
		return "nr_running or nr_migratory";
	if (rq->rt.highest != bitmap_highest(rq->rt.bitmap))
		return "highest";
	/* The counts hold (above): the published waiting level must be the one they give now. */
	waiting = waiting_level(rq, rq->curr);
	if (rq->rt.waiting != waiting) {
		const struct task *c = rq->curr;	/* NULL on a CPU not brought up */

		ksnprintf(rt_broken, sizeof(rt_broken),
			  "waiting %d, the queue gives %d (throttled %d, curr %s prio %d %s, nr_running %u)",
			  rq->rt.waiting, waiting, rq->rt.throttled, c ? c->name : "none", c ? c->prio : 0,
			  c && c->rt.on_list ? "queued" : "not queued", rq->rt.nr_running);
		return rt_broken;
	}
	if (rq->rt.overloaded != (rq->rt.nr_running >= 2 && migratory > 0))
		return "overloaded";
	return NULL;
}

/*
 * Past the grace in time and in this CPU's own ticks: a vCPU that the host
 * did not run for a while has not had the chance to push (its tick's push
 * retry, rt_tick()), and is not a broken protocol.
 */
static bool waited_long(const struct rq *rq, const struct task *p, uint64_t now, uint64_t grace_ns)
{
#ifdef CONFIG_SCHED_DEBUG
	if ((uint32_t)rq->ticks - p->wait_ticks_base < RT_INVARIANT_GRACE_TICKS)
		return false;
#else
	(void)rq;
#endif
	return now - p->wait_start_ns > grace_ns;
}

bool rt_check_invariant(int cpu, uint64_t now, uint64_t grace_ns)
{
	struct rq *rq = cpu_rq(cpu);
	bool broken = false;

	if (!READ_ONCE(rq->rt.overloaded) || READ_ONCE(rq->rt.throttled))
		return false;
	for (int other = 0; other < sched_nr_cpus() && !broken; other++) {
		struct rq *o = cpu_rq(other);
		struct task *p;

		if (other == cpu || !sched_cpu_online_now(other) || READ_ONCE(o->rt.throttled))
			continue;
		if (!double_rq_trylock(rq, o))
			continue;
		p = rq->rt.overloaded ? waiting_task(rq, other, o->curr->prio) : NULL;
		/*
		 * Broken only if a whole push pass over this queue began after
		 * both held (@p waiting, @other below it) and left @p here: a
		 * vCPU the host did not run, or a CPU whose drop is still being
		 * pulled, is not a broken protocol.
		 */
		if (p && waited_long(rq, p, now, grace_ns) && o->rt.highest < p->prio &&
		    (int64_t)(rq->rt.push_start_ns - o->rt.level_since_ns) > 0 &&
		    (int64_t)(rq->rt.push_start_ns - p->wait_start_ns) > 0 &&
		    (int64_t)(rq->rt.push_done_ns - rq->rt.push_start_ns) >= 0) {
			kprintf("INVARIANT BROKEN: rt: task %u '%s' prio %d waited %llu us on cpu%d while cpu%d ran "
				"'%s' prio %d\n",
				(unsigned)p->tid, p->name, p->prio,
				(unsigned long long)((now - p->wait_start_ns) / NSEC_PER_USEC), cpu, other,
				o->curr->name, o->curr->prio);
			/* What a push would do now: the report says which part failed. */
			kprintf("INVARIANT BROKEN: rt: cpu%d runs '%s' prio %d (throttled %d, %u RT here); the task may use "
				"0x%x (%d CPUs), a push would pick cpu%d; cpu%d's level %d since %llu us\n",
				cpu, rq->curr->name, rq->curr->prio, (int)rq->rt.throttled, rq->rt.nr_running,
				(unsigned)cpumask_low32(&p->cpus_allowed), p->nr_cpus_allowed, find_lowest_cpu(p, cpu), other,
				cpupri_get(other), (unsigned long long)((now - o->rt.level_since_ns) / NSEC_PER_USEC));
			broken = true;
			__atomic_fetch_add(&invariant_breaks, 1, __ATOMIC_RELAXED);
		}
		double_rq_unlock(rq, o);
	}
	return broken;
}

static unsigned int rt_nr_throttled(const struct rq *rq)
{
	return rq->rt.throttled ? rq->rt.nr_running : 0;
}

static struct sched_class rt_sched_class = {
	.name = "rt",
	.policies = SCHED_POLICY_BIT(SCHED_FIFO) | SCHED_POLICY_BIT(SCHED_RR),
	.init_rq = rt_init_rq,
	.enqueue = rt_enqueue,
	.dequeue = rt_dequeue,
	.pick_next = rt_pick_next,
	.put_prev = rt_put_prev,
	.set_curr = rt_set_curr,
	.update_curr = rt_update_curr,
	.tick = rt_tick,
	.check_preempt = rt_check_preempt,
	.select_rq = rt_select_rq,
	.switched_to = rt_switched_to,
	.set_cpus_allowed = rt_set_cpus_allowed,
	.balance = rt_balance,
	.for_each_queued = rt_for_each_queued,
	.check = rt_check,
	.nr_throttled = rt_nr_throttled,
};
SCHED_CLASS(rt_sched_class, 10);
