/*
 * Scheduler core: run queues, schedule(), wake-ups, the tick, idle.
 * The rules (who is where, which lock guards what) are stated in
 * include/kernel/sched/sched.h; the fair class's arithmetic is kernel/sched/fair.c.
 */
#include "kernel/sched/sched.h"

#include <string.h>

#include "arch/barrier.h"
#include "arch/cost.h"
#include "arch/cpu.h"
#include "arch/ipi.h"
#include "arch/timer.h"
#include "kernel/sched/cpufreq.h"
#include "kernel/sched/idle.h"
#include "kernel/lib/format.h"
#include "kernel/debug/inject.h"
#include "kernel/lib/panic.h"
#include "kernel/lib/printk.h"
#include "kernel/sched/sched_internal.h"
#include "kernel/sched/sched_debug.h"
#include "kernel/time/time.h"
#include "kernel/trace/trace.h"
#include "kernel/sched/topology.h"

unsigned int sched_hz = 1000;

struct rq runqueues[CONFIG_NR_CPUS];
/* CPUs that are running the scheduler (set once each arrives: sched_cpu_online). */
cpumask_t sched_cpus_online;
/*
 * CPUs running their idle task (atomic words): where a wake-up looks for
 * an idle CPU, a word at a time, with no scan of the run queues. A hint:
 * set before the switch to idle, cleared after the switch away, so a CPU
 * may be in it while a wakee is already queued there; select_task_rq()
 * confirms each candidate with cpu_idle_now().
 */
cpumask_t idle_hint;
#if CPUMASK_WORDS > 1
int idle_hint_nr;
#endif

void sched_set_idle_hint(int cpu, bool idle)
{
	if (idle)
		cpumask_set_atomic(&idle_hint, cpu);
	else
		cpumask_clear_atomic(&idle_hint, cpu);
#if CPUMASK_WORDS > 1
	__atomic_fetch_add(&idle_hint_nr, idle ? 1 : -1, __ATOMIC_RELAXED);
#endif
}

int sched_cpu_count;
static struct timer tick_timers[CONFIG_NR_CPUS];
static uint64_t tick_ns;	/* NSEC_PER_SEC / sched_hz, fixed at sched_init() */

static struct rq *this_rq(void)
{
#ifdef ARCH_HAS_CPU_LOCAL
	struct rq *rq = arch_cpu_local();	/* sched_init_cpu() set it */

	KASSERT_DEBUG(rq == &runqueues[arch_cpu_id()]);
	return rq;
#else
	return &runqueues[arch_cpu_id()];
#endif
}

struct task *current_task(void)
{
	unsigned long flags = arch_irq_save();
	struct task *t = this_rq()->curr;

	arch_irq_restore(flags);
	return t;
}

static uint64_t tick_period_ns(void)
{
	/* A 64-bit division costs ~120 instructions on a Cortex-A9: not per tick. */
	KASSERT_DEBUG(tick_ns == NSEC_PER_SEC / sched_hz);
	return tick_ns;
}

/*
 * PELT bookkeeping. A task's avg is written only under the lock of the rq
 * it is on (both locks while it migrates); the rq's avg by its own CPU or
 * under its lock. Each update accounts the time since the last one in the
 * state the entity was in during it, so a task's runs BEFORE its state
 * changes. The rq's state changes far less often than its tasks switch
 * (yield to yield, it stays running), so it is remembered instead
 * (avg_runnable, avg_running) and rq_avg_sync(), called AFTER a change of
 * curr or of the queue, updates only when the state really changed: the
 * series is the same, one update per idle/busy transition and per tick.
 */
static inline void rq_avg_sync(struct rq *rq, uint64_t now)
{
	bool running = !rq->curr->is_idle, runnable = running || rq->nr_running > 0;

	if (running == rq->avg_running && runnable == rq->avg_runnable)
		return;
	pelt_update_scaled(&rq->avg, now, rq->avg_runnable, rq->avg_running, rq->freq_scale);
	rq->avg_runnable = runnable;
	rq->avg_running = running;
	trace_pelt_cfs(rq->cpu, &rq->avg);
	if (!running)
		cpufreq_update(rq->cpu, now, CPUFREQ_DEQUEUE);
}

/* @scale: the frequency scale of the CPU it ran on when @running (rq->freq_scale), else any. */
static void update_task_avg(struct task *p, uint64_t now, bool runnable, bool running, uint32_t scale)
{
	pelt_update_scaled(&p->se.avg, now, runnable, running, scale);
	trace_pelt_se(p);
}

/* Run the class work (RT push/pull) that the lock holder asked for: after the unlock. */
static void __attribute__((noinline)) run_class_work(struct rq *rq, unsigned int work)
{
	for (int i = 0; work; i++, work >>= 1)
		if (work & 1u) {
			KASSERT_DEBUG(sched_class_order[i]->balance);	/* only a class with one sets its bit */
			sched_class_order[i]->balance(rq);
		}
}

/* Unlock @rq, then do the class work queued under it; returns whether there was some. */
static inline bool rq_unlock(struct rq *rq)
{
	unsigned int work = rq->class_work;

	rq->class_work = 0;
	spin_unlock(&rq->lock);
	if (__builtin_expect(work != 0, 0)) {
		run_class_work(rq, work);
		return true;
	}
	return false;
}

static int select_task_rq(struct task *p, int prev_cpu, bool wakeup);
static void enqueue_on(struct task *p, int target, int flags);

/* ---------------------------------------------------------------- tick */

/*
 * The tick timer's callback: the scheduler's work at the interrupt's clock.
 * The timer is periodic (timer_set_period()): timers_run() has already
 * moved it one period on, under the lock it holds anyway, and programs the
 * hardware once for all callbacks.
 *
 * A tick that ends past its next slot (it waited for a lock, its vCPU was
 * descheduled, the interrupt's other work outlasted a period) has overrun.
 * Re-armed on the grid it would fire again before the interrupt returned,
 * the dispatcher would take it in the same loop, and a CPU whose ticks keep
 * overrunning would never reach sched_irq_exit(), where it reschedules: it
 * would tick on with need_resched set and its tasks stranded. So the next
 * tick waits for the first slot after now plus as long as this one was late
 * (at most TICK_HOLD_MAX_NS), leaving the CPU time outside its interrupts,
 * as Linux's hrtimer_interrupt() holds its next event back after a hang.
 * "Now" is where the tick ended, a clock read of its own: the interrupt's
 * clock would miss a tick whose own work outlasted a period, and the GIC's
 * dispatcher (gic_handle_irq() takes every pending interrupt before it
 * returns) would run it again at once (tests/qemu/test_smp_debug.py).
 */
#define TICK_HOLD_MAX_NS (100ull * NSEC_PER_MSEC)

/*
 * Each CPU's ticks keep one grid, k * period + its skew, however often the
 * tick stops and restarts (Linux's tick_nohz_restart() forwards the last
 * expiry). A tick restarted at "now + period" would lock onto whatever woke
 * the CPU: with a task whose period is the tick's (cyclictest -i 1000 at
 * HZ=1000), every tick then falls a fixed ~1 us after the task's timer for
 * the whole run, inside its wake-up's wait or inside its run depending on a
 * few instructions of the first wake-up, and PELT and the pack buddy's
 * waiting rule see that tick in every period. The skew, cpu x period / (2 x
 * CPUs) (Linux's skew_tick=1), keeps the CPUs' ticks apart: under QEMU
 * icount, where vCPUs take turns up to the next timer deadline, ticks all
 * due at once let a busy vCPU wait several turns for its own, and the
 * overrun rule above then holds it back further (cpu1 ticked 108 times in
 * 3 s of test_smp_debug's starvation test). The first slot after @after;
 * @last (the tick's previous expiry, a slot or TIMER_NEVER) makes the usual
 * short stop a few additions instead of a 64-bit division (~120
 * instructions on a Cortex-A9).
 */
SCHED_TESTABLE uint64_t tick_slot_after(const struct rq *rq, uint64_t after, uint64_t last)
{
	uint64_t period = tick_period_ns(), skew = rq->tick_skew_ns, next;

	if (last <= after && after - last < 4 * period) {
		for (next = last + period; next <= after; next += period)
			;
	} else if (last > after && last - after <= period) {
		next = last;
	} else {
		next = after < skew ? skew : ((after - skew) / period + 1) * period + skew;
	}
	KASSERT_DEBUG(next > after && (next - skew) % period == 0);
	return next;
}

static void sched_tick_at(uint64_t now);

static void tick_fn(struct timer *t)
{
	struct rq *rq = t->arg;
	uint64_t now;

	sched_tick_at(timers_cb_now());	/* the interrupt's clock: the tick's time */
	if (rq->tick_stopped) {
		timer_cancel(t);
		return;
	}
	/* The timer is periodic: already at the next slot. Where the tick ended (it may have waited for a lock): */
	now = arch_now_ns();
	if (t->expires <= now) {
		uint64_t slot = t->expires - tick_period_ns(), late = now - slot;	/* this tick's slot */

		timer_arm(t, tick_slot_after(rq, now + (late < TICK_HOLD_MAX_NS ? late : TICK_HOLD_MAX_NS), slot));
		rq->tick_overruns++;
	}
}

SCHED_TESTABLE void tick_start(struct rq *rq, uint64_t now)
{
	arch_cost(COST_NOHZ);
	rq->tick_stopped = false;
	WRITE_ONCE(rq->last_tick_ns, now);	/* the watchdog counts from here */
	nohz_exit_idle(rq->cpu);
	timer_arm(&tick_timers[rq->cpu], tick_slot_after(rq, now, tick_timers[rq->cpu].expires));
}

/*
 * Going idle: stop the tick, unless another timer is due before it (as
 * Linux does when the next event is within a tick): that timer wakes the
 * CPU first anyway, and a short idle then costs no tick restart on the way
 * out (the wake-up path) and no stop on the way in. Returns the CPU's next
 * timer expiry, for the idle governor.
 */
SCHED_TESTABLE uint64_t tick_stop_idle(struct rq *rq)
{
	uint64_t next = timers_next_expiry(rq->cpu);

	if (rq->tick_stopped)
		return next;
	if (next < tick_timers[rq->cpu].expires)
		return next;
	arch_cost(COST_NOHZ);
	timer_cancel(&tick_timers[rq->cpu]);
	rq->tick_stopped = true;
	nohz_enter_idle(rq->cpu);
	return timers_next_expiry(rq->cpu);
}

/* The tick's scheduler work at @now, this CPU's current time. */
static void sched_tick_at(uint64_t now)
{
	struct rq *rq = this_rq();
	struct starve_hit starved = { 0 };
	bool starving;

	arch_cost(COST_TICK);
	WRITE_ONCE(rq->last_tick_ns, now);
	if (rq->ticks % WATCHDOG_CHECK_TICKS == 0)
		watchdog_check(rq, now);
	spin_lock(&rq->lock);
	rq->clock = now;
	rq->ticks++;
	pelt_update_scaled(&rq->avg, now, rq->avg_runnable, rq->avg_running, rq->freq_scale);
	trace_pelt_cfs(rq->cpu, &rq->avg);
	if (rq->avg_rt_running)	/* else it only decays: brought up to date when read or when RT runs */
		pelt_update_scaled(&rq->avg_rt, now, true, true, rq->freq_scale);
	cpufreq_update(rq->cpu, now, CPUFREQ_TICK);
	KASSERT_DEBUG((rq->nr_running >= 2) == cpumask_test(&sched_overloaded, rq->cpu) &&
		      rq->overloaded == cpumask_test(&sched_overloaded, rq->cpu));
	if (!rq->curr->is_idle) {
		update_task_avg(rq->curr, now, true, true, rq->freq_scale);
		sched_class_call(rq->curr->sched_class, tick, rq, rq->curr, now);
	}
	starving = debug_tick_locked(rq, now, &starved);
	rq_unlock(rq);
	balance_tick(rq, now);
	debug_tick_unlocked(rq, starving, &starved);
}

void sched_tick(void)
{
	sched_tick_at(arch_now_ns());
}

/* ---------------------------------------------------------------- core */

/* The class-neutral counts beside the class's own queue: every enqueue and dequeue comes here. */
static inline void enqueue_task(struct rq *rq, struct task *p, int flags)
{
	if (p->sched_class == &fair_sched_class) {
		fair_enqueue(rq, p, flags);
	} else {
		p->sched_class->enqueue(rq, p, flags);
		rq->nr_outside_fair++;
	}
	rq->nr_running++;
	rq->class_nr[p->sched_class->idx]++;
	rq_overload_update(rq);
}

static inline void dequeue_task(struct rq *rq, struct task *p, int flags)
{
	KASSERT_DEBUG(rq->nr_running > 0 && rq->class_nr[p->sched_class->idx] > 0);
	if (p->sched_class == &fair_sched_class) {
		fair_dequeue(rq, p, flags);
	} else {
		p->sched_class->dequeue(rq, p, flags);
		rq->nr_outside_fair--;
	}
	rq->nr_running--;
	rq->class_nr[p->sched_class->idx]--;
	rq_overload_update(rq);
}

/* Should @p, just queued on @rq, take the CPU from curr? A higher class always does. */
static inline bool wakeup_preempts(const struct rq *rq, const struct task *p)
{
	const struct task *curr = rq->curr;

	if (curr->is_idle)
		return true;
	if (p->sched_class == curr->sched_class)
		return sched_class_call(p->sched_class, check_preempt, rq, p);
	return p->sched_class->idx < curr->sched_class->idx;
}

/*
 * The first class with a runnable task picks (and makes it its curr);
 * @prev's class, if another one picked and @prev is still queued, puts
 * @prev back. The idle class always has one (its class_nr is 1), so the
 * loop ends there at the latest. With only fair tasks queued (prev, if of
 * another class, has left the queue), the fair class picks directly.
 */
static inline struct task *pick_next_task(struct rq *rq, struct task *prev, bool yield, uint64_t now)
{
	const struct sched_class *prev_class = prev->sched_class;

	/* Every queued task fair (the common case): the fair class picks, else the idle task runs. */
	if (!rq->nr_outside_fair) {
		struct task *next = fair_pick_next(rq, prev, yield, now);

		return next ? next : rq->idle;
	}
	for (int i = 0;; i++) {
		const struct sched_class *c = sched_class_order[i];
		struct task *next;

		KASSERT_DEBUG(i < sched_nr_classes);
		if (!rq->class_nr[i] && c != prev_class)
			continue;
		next = c->pick_next(rq, prev, yield, now);	/* the fast path above inlines the fair class's */
		if (!next)
			continue;
		if (c != prev_class && prev->on_rq)
			sched_class_call(prev_class, put_prev, rq, prev);
		return next;
	}
}

bool double_rq_trylock(struct rq *a, struct rq *b)
{
	struct rq *first = a->cpu < b->cpu ? a : b, *second = a->cpu < b->cpu ? b : a;

	KASSERT(a != b);
	if (!spin_trylock(&first->lock))
		return false;
	if (!spin_trylock(&second->lock)) {
		spin_unlock(&first->lock);
		return false;
	}
	return true;
}

void double_rq_lock(struct rq *a, struct rq *b)
{
	struct rq *first = a->cpu < b->cpu ? a : b, *second = a->cpu < b->cpu ? b : a;

	KASSERT(a != b);
	spin_lock(&first->lock);
	spin_lock(&second->lock);
}

void double_rq_unlock(struct rq *a, struct rq *b)
{
	spin_unlock(&a->lock);
	spin_unlock(&b->lock);
}

void resched_cpu(int cpu)
{
	struct rq *rq = &runqueues[cpu];

	WRITE_ONCE(rq->need_resched, true);
	if (cpu != arch_cpu_id())
		arch_send_reschedule(cpu);
}

void rq_attach_new(struct rq *rq)
{
	pelt_update_scaled(&rq->avg, rq->clock, rq->avg_runnable, rq->avg_running, rq->freq_scale);
	pelt_add_usage(&rq->avg, (PELT_SCALE - pelt_usage_ratio(&rq->avg)) / 2);
	trace_pelt_cfs(rq->cpu, &rq->avg);
	/* Now, not at the CPU's next look: the domain's other CPUs read this util as its latest. */
	cpufreq_update(rq->cpu, rq->clock, CPUFREQ_NEW);
}

/* Put a woken or new task on @rq. Called with rq->lock held. */
static void activate(struct rq *rq, struct task *p, int flags)
{
	KASSERT_DEBUG(!p->on_rq && p->cpu == rq->cpu);
	/* Woken: it slept until now. New or moved: it was waiting to run. */
	update_task_avg(p, rq->clock, !(flags & ENQ_WAKEUP), false, PELT_SCALE);
	/*
	 * The running task's runtime, for an enqueue that reads it: a wakee of
	 * its own class (the fair class places by the current min_vruntime).
	 * Another class's enqueue and the preemption check between classes do
	 * not; the switch or the tick brings curr up to date (as Linux's
	 * enqueue_task_rt() leaves the CFS curr alone). The idle task first:
	 * the wake-up from idle pays one test, as before.
	 */
	if (!rq->curr->is_idle && rq->curr->sched_class == p->sched_class)
		sched_class_call(p->sched_class, update_curr, rq, rq->clock);
	enqueue_task(rq, p, flags);
	rq_avg_sync(rq, rq->clock);
	cpufreq_update(rq->cpu, rq->clock, p->prio > 0 ? CPUFREQ_RT : CPUFREQ_ENQUEUE);
	p->on_rq = true;
	p->state = TASK_RUNNABLE;
	p->wait_start_ns = rq->clock;
	debug_wait_begins(p, rq, rq->clock);
	task_history(p, TEV_ENQUEUE, rq->cpu, flags);
	if (wakeup_preempts(rq, p))
		rq->need_resched = true;
	arch_cost(COST_WAKEUP);	/* after the timestamp: the wakee waits while it is spent */
}

void migrate_task_locked(struct task *p, struct rq *src, struct rq *dst)
{
	uint64_t now = arch_now_ns();

	KASSERT(p->on_rq && p->cpu == src->cpu && src->curr != p && task_allowed_on(p, dst->cpu));
	update_task_avg(p, now, true, false, PELT_SCALE);
	dequeue_task(src, p, DEQ_MIGRATE);
	rq_avg_sync(src, now);
	p->on_rq = false;
	p->cpu = dst->cpu;
	p->nr_migrations++;
	trace_sched_migrate(p, src->cpu, dst->cpu);
	task_history(p, TEV_MIGRATE, dst->cpu, src->cpu);
	dst->clock = now;
	activate(dst, p, ENQ_MIGRATED);
}

/* The RT average accrues while an RT task runs: brought up to date when that changes. */
static void rq_avg_rt_sync(struct rq *rq, const struct task *next, uint64_t now)
{
	bool rt = next->prio > 0;

	if (rt == rq->avg_rt_running)
		return;
	pelt_update_scaled(&rq->avg_rt, now, rq->avg_rt_running, rq->avg_rt_running, rq->freq_scale);
	rq->avg_rt_running = rt;
}

/*
 * The CPU moves between its idle task and a task (@prev_idle: from idle):
 * the stretch that ends goes to rq->idle_ns or rq->busy_ns. Task to task
 * the CPU stays busy and nothing is written; sched_cpu_time() adds the
 * stretch in progress.
 */
static void account_idle_edge(struct rq *rq, bool prev_idle, uint64_t now)
{
	uint64_t delta = now - rq->stretch_ns;

	if (prev_idle)
		rq->idle_ns += delta;
	else
		rq->busy_ns += delta;
	rq->stretch_ns = now;
}

void sched_cpu_time(int cpu, uint64_t now, uint64_t *busy_ns, uint64_t *idle_ns)
{
	const struct rq *rq = cpu_rq(cpu);
	const struct task *curr = READ_ONCE(rq->curr);
	uint64_t since = READ_ONCE(rq->stretch_ns), busy = READ_ONCE(rq->busy_ns), idle = READ_ONCE(rq->idle_ns);

	/* Unlocked, as the fields were always read: a stretch ending meanwhile may show late; never negative time. */
	if (curr && now > since) {
		if (curr->is_idle)
			idle += now - since;
		else
			busy += now - since;
	}
	*busy_ns = busy;
	*idle_ns = idle;
}

/*
 * The switch's work for a CPU that leaves its idle task (@prev_idle) or
 * enters it: its tick, the idle hint, the time accounting.
 */
static void switch_idle_edge(struct rq *rq, bool prev_idle, uint64_t now)
{
	if (prev_idle) {
		if (rq->tick_stopped)
			tick_start(rq, now);
		sched_set_idle_hint(rq->cpu, false);
	} else {
		rq->newidle = true;
		sched_set_idle_hint(rq->cpu, true);
	}
	account_idle_edge(rq, prev_idle, now);
}

/*
 * Must switching-out, still runnable @prev leave this CPU? Its affinity
 * may have changed while it ran or on its way here (task_set_affinity()
 * then set recheck_cpu, and only then is the mask tested), or the
 * placement policy asked for an active push (rq->misfit_push, with
 * recheck_cpu set too: rq_request_push()).
 */
static inline bool prev_must_move(struct rq *rq, struct task *prev)
{
	if (__builtin_expect(!prev->recheck_cpu, 1)) {
		/* (A push asked long ago may still name prev here: stale, and so not taken.) */
		KASSERT_DEBUG(task_allowed_on(prev, rq->cpu));
		return false;
	}
	prev->recheck_cpu = false;	/* tested: allowed here until its affinity changes again */
	return !task_allowed_on(prev, rq->cpu) || rq->misfit_push == prev;
}

/*
 * schedule_locked()'s tail, from @prev to @next: @edge (a constant at each
 * call) when either is the idle task (@prev_idle: prev is).
 */
static inline __attribute__((always_inline)) void switch_to(struct rq *rq, struct task *prev, bool prev_idle,
							     struct task *next, uint64_t now, const bool edge)
{
	if (!edge || !next->is_idle)
		update_task_avg(next, now, true, false, PELT_SCALE);	/* it was waiting */
	if (prev->sched_class != next->sched_class)
		rq_avg_rt_sync(rq, next, now);
	if (edge)
		switch_idle_edge(rq, prev_idle, now);
	next->nr_switches++;
	rq->nr_switches++;
	trace_sched_switch(prev, next);
	rq->curr = next;
	if (edge)
		rq_avg_sync(rq, now);	/* task to task the rq stays running */
	debug_switch(rq, prev, prev_idle, next, now);
	arch_context_switch(&prev->ctx, &next->ctx);
}

/*
 * Pick and switch. Called and returns with the current rq lock held, IRQs
 * off. @yield: prev called task_yield() (Linux's skip buddy: it gives way
 * to any other runnable task).
 */
static void schedule_locked(struct rq *rq, bool yield)
{
	struct task *prev = rq->curr, *next;
	bool prev_idle = prev->is_idle;	/* once: the atomics below would reload it */
	uint64_t now = arch_now_ns();

	/* A timer callback must not switch: timers_run() would be left half done. */
	KASSERT_DEBUG(!timers_in_callbacks(rq->cpu));
	rq->clock = now;
	debug_schedule(rq, now);
	if (!prev_idle) {
		update_task_avg(prev, now, true, true, rq->freq_scale);
		sched_class_call(prev->sched_class, update_curr, rq, now);
		if (prev->state != TASK_RUNNABLE) {
			dequeue_task(rq, prev, DEQ_SLEEP);
			prev->on_rq = false;
		} else if (prev_must_move(rq, prev)) {
			/* Its affinity changed, or it misfits: push it after the switch. */
			dequeue_task(rq, prev, DEQ_MIGRATE);
			prev->on_rq = false;
			prev->state = TASK_WAKING;
			KASSERT(!rq->deferred_push);
			rq->deferred_push = prev;
			rq->has_deferred = true;
		}
	}
	next = pick_next_task(rq, prev, yield, now);
	rq->need_resched = false;
	if (next == prev)
		return;
	/* One idle task per CPU: an edge when either is it. Two copies of the tail, no flag kept. */
	if (__builtin_expect(!prev_idle && !next->is_idle, 1))
		switch_to(rq, prev, false, next, now, false);
	else
		switch_to(rq, prev, prev_idle, next, now, true);
}

/*
 * After a switch: release the rq lock the switching-out task took and run
 * the wake-up it deferred. IRQs stay off. Returns whether class work ran
 * (an RT pull: the CPU may have to switch again).
 */
static bool __attribute__((noinline)) finish_switch_deferred(struct rq *rq);

static inline bool finish_switch(void)
{
	struct rq *rq = this_rq();

	debug_finish_switch(rq);
	if (__builtin_expect(!rq->has_deferred, 1))	/* the common case: no exit, no push */
		return rq_unlock(rq);
	return finish_switch_deferred(rq);
}

/* The exit's wake-up, a freed task, a push: apart, so the common switch stays short. */
static bool finish_switch_deferred(struct rq *rq)
{
	struct task *w, *push, *dead;
	int target = rq->cpu;	/* replaced by the push's placement; read only with a push */
	bool work;

	w = rq->deferred_wake;
	push = rq->deferred_push;
	dead = rq->deferred_free;
	rq->has_deferred = false;
	rq->deferred_wake = NULL;
	rq->deferred_push = NULL;
	rq->deferred_free = NULL;
	if (push) {
		/*
		 * Placed under the rq lock we still hold, as every placement is:
		 * a second task_set_affinity() (which takes this lock: push->cpu
		 * is still ours) must not change the mask while select reads it.
		 */
		if (push == rq->misfit_push && task_allowed_on(push, rq->misfit_dst))
			target = rq->misfit_dst;	/* active balance: the bigger CPU the policy chose */
		else
			target = select_task_rq(push, rq->cpu, false);
		rq->misfit_push = NULL;
		push->nr_migrations++;
		trace_sched_migrate(push, rq->cpu, target);
		push->cpu = target;
	}
	work = rq_unlock(rq);
	if (w)
		wake_up(w);
	if (dead)
		task_free(dead);	/* its stack is no longer in use */
	if (push)
		enqueue_on(push, target, ENQ_MIGRATED);
	return work;
}

void sched_finish_switch(void)
{
	finish_switch();
	arch_irq_enable();
}

static void schedule(bool yield)
{
	unsigned long flags = arch_irq_save();
	struct rq *rq = this_rq();

	arch_cost(COST_SCHEDULE);
	spin_lock(&rq->lock);
	schedule_locked(rq, yield);
	/*
	 * The class work after the switch (an RT pull) may have brought a task
	 * that outranks us: switch again, three times more at most (IRQs are
	 * off; past that the next interrupt's exit does it), not yielding.
	 */
	for (int again = 0; __builtin_expect(finish_switch(), 0) && READ_ONCE(this_rq()->need_resched) && again < 3;
	     again++) {
		rq = this_rq();
		spin_lock(&rq->lock);
		schedule_locked(rq, false);
	}
	arch_irq_restore(flags);
}

void sched_irq_exit(void)
{
	if (debug_irq_exit(this_rq()))
		return;		/* `crash starve` */
	inject_delay(INJECT_IRQ_EXIT);
	KASSERT_DEBUG(!timers_in_callbacks(arch_cpu_id()));	/* timers_run() finished before the IRQ ends */
	if (this_rq()->need_resched)
		schedule(false);
}

/* Drain this CPU's wake list (remote wake-ups). IRQs off. */
static void drain_wake_list(struct rq *rq)
{
	struct task *list;

	if (!READ_ONCE(rq->wake_list))
		return;
	list = __atomic_exchange_n(&rq->wake_list, NULL, __ATOMIC_ACQUIRE);
	inject_delay(INJECT_WAKE_LIST);	/* taken off the list, not yet queued */
	spin_lock(&rq->lock);
	rq->clock = arch_now_ns();
	while (list) {
		struct task *p = list;

		list = p->wake_next;
		activate(rq, p, p->wake_flags);
	}
	rq_unlock(rq);
}

void sched_ipi(void)
{
	struct rq *rq = this_rq();

	if (READ_ONCE(rq->timer_kick))
		watchdog_take_kick(rq, tick_timers[rq->cpu].cpu == rq->cpu);
	drain_wake_list(rq);
	if (READ_ONCE(rq->nohz_kick)) {
		WRITE_ONCE(rq->nohz_kick, false);
		balance_nohz_kicked(rq);
	}
}


uint64_t sched_timer_kicks(void)
{
	uint64_t n = 0;

	for (int cpu = 0; cpu < sched_cpu_count; cpu++)
		n += READ_ONCE(runqueues[cpu].timer_kicks);
	return n;
}

uint32_t sched_possible_mask(void)
{
	return sched_cpu_count >= 32 ? ~0u : (1u << sched_cpu_count) - 1;
}

void sched_cpu_online(int cpu)
{
	idle_cpu_online(cpu);
	sched_set_idle_hint(cpu, true);	/* it runs its idle task */
	/*
	 * Its tick is stopped (sched_init_cpu()) until a task runs here: it is
	 * tickless idle from now, so a busy CPU may kick it to balance (as
	 * tick_stop_idle() would have said had it ever gone idle).
	 */
	if (cpu_rq(cpu)->tick_stopped)
		nohz_enter_idle(cpu);
	cpumask_set_atomic(&sched_cpus_online, cpu);
}

/*
 * Where a task runs when it wakes (@wakeup) or is placed anew: its class
 * decides (the fair class: the placement policy, then the seeds' kernel's
 * fallbacks, kernel/sched/select.c; the RT class: the lowest-priority CPU).
 */
static int select_task_rq(struct task *p, int prev_cpu, bool wakeup)
{
	int cpu;

	/* One CPU allowed: nothing to decide (Linux skips the class's placement too). */
	if (p->nr_cpus_allowed == 1) {
		cpu = cpumask_first(&p->cpus_allowed);
		if (sched_cpu_online_now(cpu))
			return cpu;
	}
	cpu = sched_class_call(p->sched_class, select_rq, p, prev_cpu, wakeup);
	KASSERT_DEBUG(task_allowed_on(p, cpu));
	return cpu;
}

int sched_select_task_rq(struct task *p, int prev_cpu, bool wakeup)
{
	return select_task_rq(p, prev_cpu, wakeup);
}

/* Lock the rq @p belongs to (p->cpu may change until we hold it). */
static struct rq *task_rq_lock(struct task *p)
{
	for (;;) {
		int cpu = READ_ONCE(p->cpu);
		struct rq *rq = &runqueues[cpu];

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
		struct rq *rq = &runqueues[self];

		spin_lock(&rq->lock);
		rq->clock = arch_now_ns();
		activate(rq, p, flags);
		rq_unlock(rq);
		return;
	}
	/* Lock-free push onto the target's wake list, then kick it. */
	debug_wait_begins_now(p, &runqueues[target]);
	task_history(p, TEV_WAKE_LIST, self, target);
	p->wake_flags = flags;
	p->wake_next = READ_ONCE(runqueues[target].wake_list);
	while (!__atomic_compare_exchange_n(&runqueues[target].wake_list, &p->wake_next, p, true,
					    __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		cpu_relax();
	/*
	 * Kick only a list that was empty (Linux's llist_add() rule): a pusher
	 * that found tasks already waiting is covered by the kick of the first,
	 * whose drain has not begun (it empties the list in one exchange, ours
	 * included). A kick per push let a CPU whose drains were slow (its rq
	 * lock held by a stalled vCPU) take IPIs back to back, never reaching
	 * its timer interrupt. p->wake_next is read after the push: it can only
	 * have changed if the target drained p, ran it and someone pushed it
	 * again, and then our push needs no kick any more.
	 */
	if (!p->wake_next)
		arch_send_reschedule(target);
}

bool wake_up(struct task *p)
{
	unsigned long flags;
	struct rq *rq;

#ifdef CONFIG_GUARD_SLOW_WAKEUP
	/* tests/qemu/test_bench_guard.py: a wake-up made N instructions slower on purpose. */
#define GUARD_STR2(x) #x
#define GUARD_STR(x) GUARD_STR2(x)
	__asm__ volatile(".rept " GUARD_STR(CONFIG_GUARD_SLOW_WAKEUP) "\n\tnop\n\t.endr");
#endif

	/* The waker's condition store must be visible before we read p->state. */
	smp_mb();
	flags = arch_irq_save();
	rq = task_rq_lock(p);
	int target;

	if (p->state != TASK_SLEEPING) {
		spin_unlock(&rq->lock);
		arch_irq_restore(flags);
		return false;
	}
	p->nr_wakeups++;
	trace_sched_waking(p, rq->cpu);
	if (p->on_rq) {		/* it had not switched out yet */
		p->state = TASK_RUNNABLE;
		trace_sched_wakeup(p, rq->cpu);
		task_history(p, TEV_WAKEUP, arch_cpu_id(), rq->cpu);
		spin_unlock(&rq->lock);
		arch_irq_restore(flags);
		return true;
	}
	target = select_task_rq(p, rq->cpu, true);
	if (target == rq->cpu && target == arch_cpu_id()) {
		/* It stays on this CPU: enqueue under the lock we hold (vruntime stays absolute). */
		trace_sched_wakeup(p, target);
		task_history(p, TEV_WAKEUP, target, target);
		rq->clock = timers_now();
		activate(rq, p, ENQ_WAKEUP);
		rq_unlock(rq);
		arch_irq_restore(flags);
		return true;
	}
	p->state = TASK_WAKING;
	/* The class makes what it keeps relative to the old queue (fair: vruntime); the new one rebases it. */
	if (p->sched_class == &fair_sched_class)
		fair_migrate(rq, p);
	else if (p->sched_class->migrate)
		p->sched_class->migrate(rq, p);
	if (target != rq->cpu) {
		p->nr_migrations++;
		trace_sched_migrate(p, rq->cpu, target);
	}
	trace_sched_wakeup(p, target);
	task_history(p, TEV_WAKEUP, arch_cpu_id(), target);
	p->cpu = target;
	spin_unlock(&rq->lock);
	inject_delay(INJECT_WAKE_LIST);	/* off its old rq, not yet on the new one's list */
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
	schedule(false);
}

void task_yield(void)
{
	schedule(true);
}

void sched_preempt_point(void)
{
	unsigned long flags = arch_irq_save();
	bool resched = this_rq()->need_resched;

	arch_irq_restore(flags);
	if (resched)
		schedule(false);
}

static void sleep_timer_fn(struct timer *t)
{
	wake_up(t->arg);
}

bool task_wait_until(const volatile uint32_t *cond, uint64_t deadline_ns)
{
	struct task *self = current_task();

	for (;;) {
		unsigned long flags;

		if (READ_ONCE(cond[0]))
			return true;
		if (arch_now_ns() >= deadline_ns)
			return false;
		flags = arch_irq_save();
		timer_setup(&self->sleep_timer, sleep_timer_fn, self);
		set_current_sleeping();		/* full barrier: pairs with wake_up()'s */
		if (READ_ONCE(cond[0])) {
			set_current_running();
			arch_irq_restore(flags);
			return true;
		}
		arch_cost(COST_SLEEP);
		if (deadline_ns != TIMER_NEVER)
			timer_arm(&self->sleep_timer, deadline_ns);
		arch_irq_restore(flags);
		schedule(false);
		timer_cancel(&self->sleep_timer);
	}
}

void task_sleep_until(uint64_t deadline_ns)
{
	static const uint32_t never;	/* a condition nobody sets: only the deadline ends it */

	task_wait_until(&never, deadline_ns);
}

void task_sleep_ns(uint64_t ns)
{
	task_sleep_until(arch_now_ns() + ns);
}

void sched_start_task(struct task *p)
{
	unsigned long flags = arch_irq_save();
	int target;

	/*
	 * A new task starts with one fully busy period of history, so a fresh
	 * CPU hog is not taken for a light task (and packed) before it has run.
	 */
	pelt_init(&p->se.avg, arch_now_ns());
	p->se.avg.runnable_avg_sum = PELT_PERIOD_UNITS;
	p->se.avg.usage_avg_sum = PELT_PERIOD_UNITS;
	p->se.avg.runnable_avg_period = PELT_PERIOD_UNITS;
	target = select_task_rq(p, arch_cpu_id(), false);
	trace_sched_wakeup_new(p, target);
	task_history(p, TEV_NEW, target, 0);
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
	if (self->detached)
		rq->deferred_free = self;
	else
		rq->deferred_wake = self->joiner;
	rq->has_deferred = true;
	schedule_locked(rq, false);
	panic("exited task %u ran again", (unsigned)self->tid);
}

void task_detach(struct task *t)
{
	unsigned long flags = arch_irq_save();
	struct rq *rq = task_rq_lock(t);
	bool exited = t->state == TASK_EXITED;

	KASSERT(!t->joiner);
	t->detached = true;
	spin_unlock(&rq->lock);
	arch_irq_restore(flags);
	if (exited)
		task_free(t);
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
		schedule(false);
	}
}

/* ---------------------------------------------------------------- idle */

/* Tasks queued here that may not run now (a throttled class's): the idle loop sleeps beside them. */
static unsigned int nr_throttled(const struct rq *rq)
{
	unsigned int n = 0;

	for (int i = 0; i < sched_nr_classes; i++)
		if (rq->class_nr[i] && sched_class_order[i]->nr_throttled)
			n += sched_class_order[i]->nr_throttled(rq);
	return n;
}

void sched_idle_loop(void)
{
	for (;;) {
		struct rq *rq;

		arch_irq_save();
		rq = this_rq();
		KASSERT_DEBUG(!timers_in_callbacks(rq->cpu));
		drain_wake_list(rq);
		if (rq->newidle) {
			rq->newidle = false;
			balance_newidle(rq);
		}
		if (!rq->need_resched && rq->nr_running == nr_throttled(rq)) {
			uint64_t next_timer = tick_stop_idle(rq);

			inject_delay(INJECT_IDLE);	/* a wake-up now must still end the WFI */
			/* Sleeps in the state the governor picks until an IRQ is pending. */
			cpu_idle_enter(rq->cpu, next_timer);
		}
		arch_irq_enable();
		if (rq->need_resched)
			schedule(false);
	}
}

void sched_init(int cpus)
{
	KASSERT(cpus > 0 && cpus <= CONFIG_NR_CPUS);
	KASSERT(sched_hz > 0);
	sched_classes_init();
	sched_cpu_count = cpus;
	memset(&idle_hint, 0, sizeof(idle_hint));
	memset(&sched_cpus_online, 0, sizeof(sched_cpus_online));
	memset(&sched_overloaded, 0, sizeof(sched_overloaded));
#if CPUMASK_WORDS > 1
	sched_nr_overloaded = 0;
	idle_hint_nr = 0;
#endif
	tick_ns = NSEC_PER_SEC / sched_hz;
	for (int cpu = 0; cpu < cpus; cpu++) {
		struct rq *rq = &runqueues[cpu];

		memset(rq, 0, sizeof(*rq));
		rq->lock = (spinlock_t)SPINLOCK_INIT;
		rq->cpu = cpu;
		rq->class_nr[sched_idle_class()->idx] = 1;	/* its idle task: pick_next_task() ends there */
		rq->tick_skew_ns = (uint32_t)(tick_ns / 2 / (uint64_t)cpus * (uint64_t)cpu);
		pelt_init(&rq->avg, 0);
		pelt_init(&rq->avg_rt, 0);
		rq->freq_scale = PELT_SCALE;
		for (int i = 0; i < sched_nr_classes; i++)
			if (sched_class_order[i]->init_rq)
				sched_class_order[i]->init_rq(rq);
		timer_setup(&tick_timers[cpu], tick_fn, rq);
		timer_set_period(&tick_timers[cpu], tick_period_ns());
	}
	task_stacks_guard();
}

void sched_init_cpu(int cpu)
{
	struct rq *rq = &runqueues[cpu];
	struct task *idle = task_alloc_idle(cpu);

#ifdef ARCH_HAS_CPU_LOCAL
	KASSERT(cpu == arch_cpu_id());	/* each CPU sets its own */
	arch_set_cpu_local(rq);
#endif
	timers_init_cpu(cpu);
	rq->idle = idle;
	rq->curr = idle;
	rq->stretch_ns = arch_now_ns();
	rq->tick_stopped = true;
}

/* ---------------------------------------------------------------- attributes */

void task_set_nice(struct task *p, int nice)
{
	unsigned long flags = arch_irq_save();
	struct rq *rq = task_rq_lock(p);

	KASSERT(nice >= NICE_MIN && nice <= NICE_MAX && !p->is_idle);
	fair_set_nice(rq, p, nice, arch_now_ns());
	spin_unlock(&rq->lock);
	arch_irq_restore(flags);
}

/*
 * @p takes the class and effective priority its policy and PI boost give.
 * @rq (p's) locked. A task on its way to a CPU (TASK_WAKING: on p->cpu's
 * wake list) is not queued: it changes class before its enqueue, which
 * that CPU does under this same lock, so the enqueue is the new class's.
 */
static void task_apply_prio(struct rq *rq, struct task *p)
{
	int prio = p->rt_priority > p->pi_prio ? p->rt_priority : p->pi_prio;
	const struct sched_class *from = p->sched_class;
	const struct sched_class *to = sched_class_of_policy(prio > 0 ? SCHED_FIFO : p->policy);
	bool running = rq->curr == p, queued = p->on_rq;
	int old = p->prio;
	uint64_t now = arch_now_ns();

	KASSERT(to && !p->is_idle);
	if (to == from && prio == old)
		return;		/* its place in its queue is kept (sched(7)) */
	rq->clock = now;
	if (running) {
		update_task_avg(p, now, true, true, rq->freq_scale);
		from->update_curr(rq, now);
	}
	if (queued)
		dequeue_task(rq, p, 0);
	p->prio = prio;
	p->sched_class = to;
	if (to != from && to->switched_to)
		to->switched_to(rq, p);
	if (queued) {
		/* sched(7): a lowered priority goes to the head of its new list, a raised one to the tail. */
		enqueue_task(rq, p, prio < old ? ENQ_HEAD : 0);
		if (!running)
			debug_wait_begins(p, rq, now);	/* it waits at its new priority from now on */
		if (running)
			to->set_curr(rq, p, now);
		rq_avg_rt_sync(rq, rq->curr, now);
		if (running || wakeup_preempts(rq, p))
			resched_cpu(rq->cpu);	/* a lowered curr may now lose the CPU; a raised waiter take it */
	}
}

static bool policy_prio_valid(int policy, int prio)
{
	if (policy == SCHED_OTHER)
		return prio == 0;
	if (policy == SCHED_FIFO || policy == SCHED_RR)
		return prio >= RT_PRIO_MIN && prio <= RT_PRIO_MAX;
	return false;
}

int task_setscheduler(struct task *p, int policy, int prio)
{
	unsigned long flags;
	struct rq *rq;
	int rc = -1;

	if (!policy_prio_valid(policy, prio) || p->is_idle)
		return -1;
	flags = arch_irq_save();
	rq = task_rq_lock(p);
	if (p->state != TASK_EXITED && p->state != TASK_FREE) {
		p->policy = policy;
		p->rt_priority = prio;
		if (policy == SCHED_RR)
			p->rt.time_slice = sched_rr_timeslice_ns;
		task_apply_prio(rq, p);
		rc = 0;
	}
	rq_unlock(rq);
	arch_irq_restore(flags);
	sched_preempt_point();	/* the caller may have just lowered itself, or raised a task of its CPU */
	return rc;
}

void task_set_effective_prio(struct task *p, int prio)
{
	unsigned long flags = arch_irq_save();
	struct rq *rq = task_rq_lock(p);

	KASSERT(prio >= 0 && prio <= RT_PRIO_MAX);
	p->pi_prio = prio;
	if (p->state != TASK_EXITED && p->state != TASK_FREE)
		task_apply_prio(rq, p);
	rq_unlock(rq);
	arch_irq_restore(flags);
}

int task_set_spawn_policy(int policy, int prio)
{
	struct task *self = current_task();

	if (!policy_prio_valid(policy, prio))
		return -1;
	self->spawn_policy = policy;
	self->spawn_prio = prio;
	return 0;
}

const char *sched_policy_short(int policy)
{
	switch (policy) {
	case SCHED_OTHER: return "TS";
	case SCHED_FIFO: return "FF";
	case SCHED_RR: return "RR";
	case SCHED_BATCH: return "B";
	case SCHED_IDLE: return "IDL";
	case SCHED_DEADLINE: return "DLN";
	default: return "?";
	}
}

const char *sched_policy_name(int policy)
{
	switch (policy) {
	case SCHED_OTHER: return "SCHED_OTHER";
	case SCHED_FIFO: return "SCHED_FIFO";
	case SCHED_RR: return "SCHED_RR";
	case SCHED_BATCH: return "SCHED_BATCH";
	case SCHED_IDLE: return "SCHED_IDLE";
	case SCHED_DEADLINE: return "SCHED_DEADLINE";
	default: return "SCHED_?";
	}
}

int task_set_affinity(struct task *p, uint32_t cpus_allowed)
{
	uint32_t online = sched_online_mask();
	unsigned long flags;
	struct rq *rq;
	int target = -1, old_weight;

	if (p->is_idle || !(cpus_allowed & online))
		return -1;
	flags = arch_irq_save();
	rq = task_rq_lock(p);
	old_weight = p->nr_cpus_allowed;
	task_cpus_from_word(p, cpus_allowed & online);
	p->recheck_cpu = true;	/* running or on its way to p->cpu: tested when it next switches out */
	if (p->on_rq && p->sched_class->set_cpus_allowed)
		p->sched_class->set_cpus_allowed(rq, p, old_weight);
	if (p->on_rq && !task_allowed_on(p, rq->cpu)) {
		if (rq->curr == p) {
			/* schedule_locked pushes it away when it next switches out. */
			resched_cpu(rq->cpu);
		} else {
			dequeue_task(rq, p, DEQ_MIGRATE);
			rq_avg_sync(rq, arch_now_ns());
			p->on_rq = false;
			p->state = TASK_WAKING;
			target = select_task_rq(p, rq->cpu, false);
			p->nr_migrations++;
			trace_sched_migrate(p, rq->cpu, target);
			p->cpu = target;
		}
	}
	rq_unlock(rq);
	if (target >= 0)
		enqueue_on(p, target, ENQ_MIGRATED);
	arch_irq_restore(flags);
	return 0;
}

/* ---------------------------------------------------------------- invariants */

struct place_count {
	int curr, queued, wake_listed;
};

struct queued_find {
	const struct task *p;
	int n;
};

/* Queued means waiting: curr, which the classes list too, is counted apart. */
static void count_queued(const struct task *q, void *arg)
{
	struct queued_find *qf = arg;

	if (q == qf->p && cpu_rq(q->cpu)->curr != q)
		qf->n++;
}

static void count_places(const struct task *p, struct place_count *pc)
{
	pc->curr = pc->queued = pc->wake_listed = 0;
	for (int cpu = 0; cpu < sched_cpu_count; cpu++) {
		struct rq *rq = &runqueues[cpu];

		struct queued_find qf = { .p = p };

		if (rq->curr == p)
			pc->curr++;
		for (int i = 0; i < sched_nr_classes; i++)
			if (sched_class_order[i]->for_each_queued)
				sched_class_order[i]->for_each_queued(rq, count_queued, &qf);
		pc->queued += qf.n;
		for (const struct task *w = READ_ONCE(rq->wake_list); w; w = w->wake_next)
			if (w == p)
				pc->wake_listed++;
	}
}

struct check_ctx {
	int nr;
};

static void check_task(const struct task *p, void *arg)
{
	struct check_ctx *ctx = arg;
	struct place_count pc;

	ctx->nr++;
	if (p->is_idle)
		return;
	count_places(p, &pc);
	KASSERT(pc.curr + pc.queued <= 1 && pc.wake_listed <= 1);
	switch (p->state) {
	case TASK_RUNNABLE:
		/* Running or queued, on its own rq, and nowhere else. */
		KASSERT(pc.curr + pc.queued == 1 && pc.wake_listed == 0 && p->on_rq);
		KASSERT(pc.curr ? runqueues[p->cpu].curr == p : pc.queued == 1);
		break;
	case TASK_WAKING:
		/* On a wake list, or between the waker's unlock and its push. */
		KASSERT(pc.curr + pc.queued == 0 && !p->on_rq);
		break;
	case TASK_SLEEPING:
	case TASK_EXITED:
		/* Off every queue; may still be curr while it switches out. */
		KASSERT(pc.queued == 0 && pc.wake_listed == 0);
		KASSERT(pc.curr == 0 || runqueues[p->cpu].curr == p);
		break;
	default:
		panic("task %u in impossible state %d", (unsigned)p->tid, p->state);
	}
}

int sched_check_invariants(void)
{
	unsigned long flags = arch_irq_save();
	struct check_ctx ctx = { 0 };

	for (int cpu = 0; cpu < sched_cpu_count; cpu++)
		spin_lock(&runqueues[cpu].lock);
	for (int cpu = 0; cpu < sched_cpu_count; cpu++) {
		const struct rq *rq = &runqueues[cpu];

		unsigned int nr = 0;

		for (int i = 0; i < sched_nr_classes; i++) {
			const struct sched_class *c = sched_class_order[i];
			const char *broken = c->check ? c->check(rq) : NULL;

			if (broken)
				panic("invariant: cpu%d's %s class: %s", cpu, c->name, broken);
			if (!c->idle)
				nr += rq->class_nr[i];
		}
		KASSERT(nr == rq->nr_running);
		/* rq_avg_sync() ran after every change of curr or of the queue. */
		if (!rq->curr)
			continue;	/* not brought up */
		KASSERT(rq->curr->is_idle || rq->curr->sched_class->idx < sched_nr_classes);
		KASSERT(rq->avg_running == !rq->curr->is_idle);
		KASSERT(rq->avg_runnable == (rq->avg_running || rq->nr_running > 0));
	}
	sched_for_each_task(check_task, &ctx);
	for (int cpu = sched_cpu_count - 1; cpu >= 0; cpu--)
		spin_unlock(&runqueues[cpu].lock);
	arch_irq_restore(flags);
	return ctx.nr;
}

/* ---------------------------------------------------------------- load */

void rq_avg_read(int cpu, struct sched_avg *out)
{
	struct rq *rq = &runqueues[cpu];

	pelt_snapshot(&rq->avg, out);
	/*
	 * A tickless idle CPU stops updating its average: age the copy to now
	 * as idle time, so a long-idle CPU does not look as busy as when it
	 * stopped.
	 */
	if (READ_ONCE(rq->curr)->is_idle && READ_ONCE(rq->nr_running) == 0)
		pelt_update(out, arch_now_ns(), false, false);
}

