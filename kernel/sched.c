/*
 * Scheduler core: run queues, schedule(), wake-ups, the tick, idle.
 * The rules (who is where, which lock guards what) are stated in
 * include/kernel/sched.h; the fair class's arithmetic is kernel/fair.c.
 */
#include "kernel/sched.h"

#include <string.h>

#include "arch/barrier.h"
#include "arch/cpu.h"
#include "arch/ipi.h"
#include "kernel/panic.h"
#include "kernel/time.h"

unsigned int sched_hz = 1000;

static struct rq rqs[CONFIG_NR_CPUS];
static int nr_cpus;
static struct timer tick_timers[CONFIG_NR_CPUS];

struct rq *cpu_rq(int cpu)
{
	KASSERT(cpu >= 0 && cpu < nr_cpus);
	return &rqs[cpu];
}

int sched_nr_cpus(void)
{
	return nr_cpus;
}

static struct rq *this_rq(void)
{
	return &rqs[arch_cpu_id()];
}

struct task *current_task(void)
{
	unsigned long flags = arch_irq_save();
	struct task *t = this_rq()->curr;

	arch_irq_restore(flags);
	return t;
}

static struct task *se_task(struct sched_entity *se)
{
	return (struct task *)((char *)se - __builtin_offsetof(struct task, se));
}

static uint64_t tick_period_ns(void)
{
	return NSEC_PER_SEC / sched_hz;
}

/* ---------------------------------------------------------------- tick */

static void tick_fn(struct timer *t)
{
	(void)t;
	sched_tick();
}

static void tick_start(struct rq *rq, uint64_t now)
{
	rq->tick_stopped = false;
	timer_arm(&tick_timers[rq->cpu], now + tick_period_ns());
}

static void tick_stop(struct rq *rq)
{
	if (!rq->tick_stopped) {
		timer_cancel(&tick_timers[rq->cpu]);
		rq->tick_stopped = true;
	}
}

void sched_tick(void)
{
	struct rq *rq = this_rq();
	uint64_t now = arch_now_ns();

	spin_lock(&rq->lock);
	rq->clock = now;
	rq->ticks++;
	if (!rq->curr->is_idle) {
		cfs_update_curr(&rq->cfs, now);
		if (rq->cfs.nr_running > 1 && cfs_tick_should_preempt(&rq->cfs))
			rq->need_resched = true;
	}
	spin_unlock(&rq->lock);
	if (!rq->tick_stopped)
		timer_arm(&tick_timers[rq->cpu], now + tick_period_ns());
}

/* ---------------------------------------------------------------- core */

/* Put a woken or new task on @rq. Called with rq->lock held. */
static void activate(struct rq *rq, struct task *p, int flags)
{
	KASSERT(!p->on_rq && p->cpu == rq->cpu);
	cfs_update_curr(&rq->cfs, rq->clock);
	cfs_enqueue(&rq->cfs, &p->se, flags);
	p->on_rq = true;
	p->state = TASK_RUNNABLE;
	p->wait_start_ns = rq->clock;
	if (rq->curr->is_idle || cfs_wakeup_should_preempt(&rq->cfs, &p->se))
		rq->need_resched = true;
}

static void account_switch(struct rq *rq, struct task *prev, uint64_t now)
{
	uint64_t delta = now - prev->last_ran_ns;

	if (prev->is_idle)
		rq->idle_ns += delta;
	else
		rq->busy_ns += delta;
}

/* Pick and switch. Called and returns with the current rq lock held, IRQs off. */
static void __schedule(struct rq *rq)
{
	struct task *prev = rq->curr, *next;
	struct sched_entity *se;
	uint64_t now = arch_now_ns();

	rq->clock = now;
	if (!prev->is_idle) {
		cfs_update_curr(&rq->cfs, now);
		if (prev->state != TASK_RUNNABLE) {
			cfs_dequeue(&rq->cfs, &prev->se, DEQ_SLEEP);
			prev->on_rq = false;
		} else {
			cfs_put_curr(&rq->cfs);
		}
	}
	se = cfs_pick_first(&rq->cfs);
	next = se ? se_task(se) : rq->idle;
	if (se)
		cfs_set_curr(&rq->cfs, se, now);
	rq->need_resched = false;
	if (next == prev)
		return;
	if (prev->is_idle && rq->tick_stopped)
		tick_start(rq, now);
	account_switch(rq, prev, now);
	next->last_ran_ns = now;
	next->nr_switches++;
	rq->nr_switches++;
	rq->curr = next;
#ifdef __arm__
	arch_context_switch(&prev->ctx, &next->ctx);
#else
	panic("no context switch on the host");
#endif
}

/*
 * After a switch: release the rq lock the switching-out task took and run
 * the wake-up it deferred. IRQs stay off.
 */
static void finish_switch(void)
{
	struct rq *rq = this_rq();
	struct task *w = rq->deferred_wake;

	rq->deferred_wake = NULL;
	spin_unlock(&rq->lock);
	if (w)
		wake_up(w);
}

void sched_finish_switch(void)
{
	finish_switch();
	arch_irq_enable();
}

static void schedule(void)
{
	unsigned long flags = arch_irq_save();
	struct rq *rq = this_rq();

	spin_lock(&rq->lock);
	__schedule(rq);
	finish_switch();
	arch_irq_restore(flags);
}

void sched_irq_exit(void)
{
	if (this_rq()->need_resched)
		schedule();
}

/* Drain this CPU's wake list (remote wake-ups). IRQs off. */
static void drain_wake_list(struct rq *rq)
{
	struct task *list;

	if (!READ_ONCE(rq->wake_list))
		return;
	list = __atomic_exchange_n(&rq->wake_list, NULL, __ATOMIC_ACQUIRE);
	spin_lock(&rq->lock);
	rq->clock = arch_now_ns();
	while (list) {
		struct task *p = list;

		list = p->wake_next;
		activate(rq, p, p->wake_flags);
	}
	spin_unlock(&rq->lock);
}

void sched_ipi(void)
{
	drain_wake_list(this_rq());
}

static bool cpu_idle_now(int cpu)
{
	struct rq *rq = &rqs[cpu];

	return rq->curr->is_idle && rq->cfs.nr_running == 0 && !READ_ONCE(rq->wake_list);
}

/*
 * Where a waking task runs: its previous CPU if that is idle, else the
 * first idle CPU it may use, else its previous CPU. This is the one place
 * that decides wake-up placement (the pack-buddy rule plugs in here).
 */
static int select_task_rq(struct task *p, int prev_cpu)
{
	bool prev_ok = p->cpus_allowed & (1u << prev_cpu);

	if (prev_ok && cpu_idle_now(prev_cpu))
		return prev_cpu;
	for (int cpu = 0; cpu < nr_cpus; cpu++)
		if ((p->cpus_allowed & (1u << cpu)) && cpu_idle_now(cpu))
			return cpu;
	if (prev_ok)
		return prev_cpu;
	for (int cpu = 0; cpu < nr_cpus; cpu++)
		if (p->cpus_allowed & (1u << cpu))
			return cpu;
	panic("task %u (%s) may run on no CPU", (unsigned)p->tid, p->name);
}

/* Lock the rq @p belongs to (p->cpu may change until we hold it). */
static struct rq *task_rq_lock(struct task *p)
{
	for (;;) {
		int cpu = READ_ONCE(p->cpu);
		struct rq *rq = &rqs[cpu];

		spin_lock(&rq->lock);
		if (READ_ONCE(p->cpu) == cpu)
			return rq;
		spin_unlock(&rq->lock);
	}
}

static void enqueue_on(struct task *p, int target, int flags)
{
	int self = arch_cpu_id();

	if (target == self) {
		struct rq *rq = &rqs[self];

		spin_lock(&rq->lock);
		rq->clock = arch_now_ns();
		activate(rq, p, flags);
		spin_unlock(&rq->lock);
		return;
	}
	/* Lock-free push onto the target's wake list, then kick it. */
	p->wake_flags = flags;
	p->wake_next = READ_ONCE(rqs[target].wake_list);
	while (!__atomic_compare_exchange_n(&rqs[target].wake_list, &p->wake_next, p, true,
					    __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		;
	arch_send_reschedule(target);
}

bool wake_up(struct task *p)
{
	unsigned long flags = arch_irq_save();
	struct rq *rq = task_rq_lock(p);
	int target;

	if (p->state != TASK_SLEEPING) {
		spin_unlock(&rq->lock);
		arch_irq_restore(flags);
		return false;
	}
	p->nr_wakeups++;
	if (p->on_rq) {		/* it had not switched out yet */
		p->state = TASK_RUNNABLE;
		spin_unlock(&rq->lock);
		arch_irq_restore(flags);
		return true;
	}
	target = select_task_rq(p, rq->cpu);
	p->state = TASK_WAKING;
	/* Make vruntime relative to the old queue; the new one rebases it. */
	p->se.vruntime -= rq->cfs.min_vruntime;
	if (target != rq->cpu)
		p->nr_migrations++;
	p->cpu = target;
	spin_unlock(&rq->lock);
	enqueue_on(p, target, ENQ_WAKEUP | ENQ_MIGRATED);
	arch_irq_restore(flags);
	return true;
}

void set_current_sleeping(void)
{
	WRITE_ONCE(current_task()->state, TASK_SLEEPING);
	smp_mb();
}

void set_current_running(void)
{
	WRITE_ONCE(current_task()->state, TASK_RUNNABLE);
}

void sched_block(void)
{
	schedule();
}

void task_yield(void)
{
	schedule();
}

static void sleep_timer_fn(struct timer *t)
{
	wake_up(t->arg);
}

void task_sleep_until(uint64_t deadline_ns)
{
	struct task *self = current_task();

	while (arch_now_ns() < deadline_ns) {
		unsigned long flags = arch_irq_save();

		timer_setup(&self->sleep_timer, sleep_timer_fn, self);
		set_current_sleeping();
		timer_arm(&self->sleep_timer, deadline_ns);
		arch_irq_restore(flags);
		schedule();
		timer_cancel(&self->sleep_timer);
	}
}

void task_sleep_ns(uint64_t ns)
{
	task_sleep_until(arch_now_ns() + ns);
}

void sched_start_task(struct task *p)
{
	unsigned long flags = arch_irq_save();
	int target = select_task_rq(p, arch_cpu_id());

	p->cpu = target;
	p->state = TASK_WAKING;
	enqueue_on(p, target, ENQ_NEW);
	arch_irq_restore(flags);
}

void sched_exit_current(int code)
{
	struct rq *rq;
	struct task *self;

	arch_irq_save();
	rq = this_rq();
	spin_lock(&rq->lock);
	self = rq->curr;
	KASSERT(!self->is_idle);
	self->exit_code = code;
	self->state = TASK_EXITED;
	rq->deferred_wake = self->joiner;
	__schedule(rq);
	panic("exited task %u ran again", (unsigned)self->tid);
}

int task_join(struct task *t)
{
	for (;;) {
		unsigned long flags = arch_irq_save();
		struct rq *rq = task_rq_lock(t);

		if (t->state == TASK_EXITED) {
			int code = t->exit_code;

			spin_unlock(&rq->lock);
			arch_irq_restore(flags);
			task_free(t);
			return code;
		}
		KASSERT(!t->joiner || t->joiner == current_task());
		t->joiner = current_task();
		set_current_sleeping();
		spin_unlock(&rq->lock);
		arch_irq_restore(flags);
		schedule();
	}
}

/* ---------------------------------------------------------------- idle */

void sched_idle_loop(void)
{
	for (;;) {
		struct rq *rq;

		arch_irq_save();
		rq = this_rq();
		drain_wake_list(rq);
		if (!rq->need_resched && rq->cfs.nr_running == 0) {
			tick_stop(rq);
			arch_cpu_idle();
		}
		arch_irq_enable();
		if (rq->need_resched)
			schedule();
	}
}

void sched_init(int cpus)
{
	KASSERT(cpus > 0 && cpus <= CONFIG_NR_CPUS && cpus <= 32);
	nr_cpus = cpus;
	for (int cpu = 0; cpu < cpus; cpu++) {
		struct rq *rq = &rqs[cpu];

		memset(rq, 0, sizeof(*rq));
		rq->lock = (spinlock_t)SPINLOCK_INIT;
		rq->cpu = cpu;
		cfs_rq_init(&rq->cfs);
		timer_setup(&tick_timers[cpu], tick_fn, rq);
	}
}

void sched_init_cpu(int cpu)
{
	struct rq *rq = &rqs[cpu];
	struct task *idle = task_alloc_idle(cpu);

	timers_init_cpu(cpu);
	rq->idle = idle;
	rq->curr = idle;
	idle->last_ran_ns = arch_now_ns();
	rq->tick_stopped = true;
}
