/*
 * Between the scheduler's files (kernel/sched/core.c, kernel/sched/balance.c):
 * run-queue locking and migration. Not for the rest of the kernel.
 */
#ifndef KERNEL_SCHED_INTERNAL_H
#define KERNEL_SCHED_INTERNAL_H

#include "kernel/sched/sched.h"
#include "kernel/sched/topology.h"

static inline struct task *task_of_se(struct sched_entity *se)
{
	return (struct task *)((char *)se - __builtin_offsetof(struct task, se));
}

/* Debug kernels: append an event to @p's history (what a starvation report prints). */
#ifdef CONFIG_SCHED_DEBUG
static inline void task_history_record(struct task *p, enum task_event_kind kind, int cpu, int arg)
{
	/* Atomic slot: a task in two places at once (the bug to report) must not lose both events. */
	uint32_t i = __atomic_fetch_add(&p->history_next, 1, __ATOMIC_RELAXED) % TASK_HISTORY;

	p->history[i] = (struct task_event){ .ns = arch_now_ns(), .kind = (uint8_t)kind, .cpu = (int8_t)cpu,
					     .arg = (int8_t)arg };
}
#define task_history(p, kind, cpu, arg) task_history_record((p), (kind), (cpu), (arg))
#else
/* Type-checked, never evaluated: an argument such as arch_cpu_id() is an asm the compiler would keep. */
void task_history_record(struct task *p, enum task_event_kind kind, int cpu, int arg);
#define task_history(p, kind, cpu, arg)                                          \
	do {                                                                     \
		if (0)                                                           \
			task_history_record((p), (kind), (cpu), (arg));          \
	} while (0)
#endif

/*
 * Debug kernels: the starvation detector (kernel/debug/starve.c). From the
 * tick, under the rq lock, every STARVE_CHECK_TICKS: the task that has
 * waited longest on this CPU (queued or on its wake list) if that is past
 * the limit, counted in this CPU's own ticks; or, if the CPU has taken
 * that many ticks without one IRQ exit (it never leaves its interrupts,
 * where it would reschedule), its current task, which cannot run either.
 */
#define STARVE_CHECK_TICKS 16
enum starve_where { STARVE_QUEUED, STARVE_WAKE_LIST, STARVE_IN_IRQ };
struct starve_hit {
	struct task *p;
	uint32_t ticks;		/* ticks this CPU took while @p waited */
	uint64_t ns;		/* since @p began waiting here (STARVE_IN_IRQ: since the last IRQ exit) */
	enum starve_where where;
	unsigned int queued;	/* tasks queued on the CPU */
};
bool starve_check(const struct rq *rq, uint64_t now, struct starve_hit *hit);
/* Report @hit (once per boot), with no lock held. */
void starve_report(int cpu, const struct starve_hit *hit);

/*
 * Take two rq locks if both are free now, lower CPU first (the only way to
 * hold two). IRQs off. Never waits: its callers balance load from the tick
 * and the idle loop, and a balancer that queued for a busy rq's lock (with
 * IRQs off) would make that CPU's own tick and switches queue behind every
 * balancer in turn; a pass that finds a lock taken is skipped, the next
 * interval tries again.
 */
bool double_rq_trylock(struct rq *a, struct rq *b);
/*
 * Take both, lower CPU first, waiting: only with no rq lock held, for a
 * move that must happen (the RT class's push and pull), not a balancer's.
 */
void double_rq_lock(struct rq *a, struct rq *b);
void double_rq_unlock(struct rq *a, struct rq *b);
/* Ask the port to unmap the page below every task stack (sched_init). */
void task_stacks_guard(void);
/* Move queued (not running) @p from @src to @dst; both locked. */
void migrate_task_locked(struct task *p, struct rq *src, struct rq *dst);
/* Make @cpu reschedule soon (IPI if remote). */
void resched_cpu(int cpu);
/*
 * A new fair task's first share of its CPU, counted at once in @rq's average
 * (Linux's post_init_entity_util_avg() + attach): half the CPU's spare
 * capacity, so a governor reading the average ramps from there and not from
 * an idle CPU's zero, and the CPU's governor looks now. (Linux takes the
 * smaller of that and the queue's util per unit of load times the task's
 * weight; an idle CPU's is the half.) The fair class's enqueue of a new
 * task, @rq locked; RT tasks ask for the top OPP anyway.
 */
void rq_attach_new(struct rq *rq);
/* @cpu runs its idle task with nothing queued or on its way (any CPU may ask). */
static inline bool cpu_idle_now(int cpu)
{
	const struct rq *rq = cpu_rq(cpu);
	const struct task *curr = READ_ONCE(rq->curr);

	return curr && curr->is_idle && READ_ONCE(rq->nr_running) == 0 && !READ_ONCE(rq->wake_list) &&
	       sched_cpu_online_now(cpu);
}
/* @cpu switches to (away from) its idle task: where wake-ups look for idle CPUs. */
void sched_set_idle_hint(int cpu, bool idle);
/*
 * CPUs running their idle task, ticking or not: a hint, confirm with
 * cpu_idle_now(). nohz_idle_cpus is the tickless subset.
 */
extern cpumask_t idle_hint;
#if CPUMASK_WORDS > 1
/* How many CPUs idle_hint holds: with none, a wake-up skips the search (flat in the CPU count). */
extern int idle_hint_nr;
#endif
static inline bool idle_hint_empty(void)
{
#if CPUMASK_WORDS > 1
	return READ_ONCE(idle_hint_nr) <= 0;
#else
	return !READ_ONCE(idle_hint.w[0]);
#endif
}

static inline bool task_allowed_on(const struct task *p, int cpu)
{
	return cpumask_test(&p->cpus_allowed, cpu) && sched_cpu_online_now(cpu);
}
/*
 * When the placement policy leaves a task alone (kernel/sched/select.c,
 * docs/placement.md): a wake-up goes to the waker's CPU or prev (as Linux's
 * wake_affine()), then to an idle CPU of that one's cluster, else stays
 * there, never crossing clusters; a new task (or one its CPU was taken
 * from) goes to the idlest group's idlest CPU, searched from @cpu's top
 * domain down. Both return a CPU @p may use; IRQs off.
 */
int select_wake_fallback(const struct task *p, int prev_cpu, int waker_cpu);
int select_idlest_cpu(const struct task *p, int cpu);
/* The wake-up placement decision, for benchmarks (counts a packing outcome when @wakeup). */
int sched_select_task_rq(struct task *p, int prev_cpu, bool wakeup);

/*
 * The soft-lockup watchdog (kernel/debug/watchdog.c). watchdog_check(): from
 * @self's tick, every WATCHDOG_CHECK_TICKS ticks; the first CPU to ask once
 * the machine's scan is due (one per ~67 ms) kicks a CPU whose timer
 * interrupt is TIMER_LATE_NS overdue, panics on one with no progress for
 * WATCHDOG_NS. watchdog_take_kick(): from the reschedule IPI of a kicked
 * CPU (@tick_armed: its tick timer is on its heap): runs its due timers and
 * says how late they were.
 */
#define WATCHDOG_CHECK_TICKS 64
void watchdog_check(const struct rq *self, uint64_t now);
void watchdog_take_kick(struct rq *rq, bool tick_armed);

/* Load balancing (kernel/sched/balance.c). IRQs off, no rq lock held. */
void balance_tick(struct rq *rq, uint64_t now);	/* periodic, from the tick */
int balance_newidle(struct rq *rq);		/* this CPU just went idle */
void balance_nohz_kicked(struct rq *rq);		/* we were kicked as the ilb */
/* The idle CPU busy @call_cpu kicks to balance for all tickless CPUs, or -1. */
int find_new_ilb(int call_cpu);
extern cpumask_t nohz_idle_cpus;	/* tickless idle CPUs (atomic words) */
/*
 * CPUs with a task waiting behind the running one (nr_running >= 2):
 * what the balancer looks for, so a pass over a domain with none costs a
 * few word tests instead of a scan of its CPUs. A hint kept under each rq's
 * lock (rq_overload_update() after every enqueue and dequeue), read without
 * locks; the balancer re-checks under both rq locks before it moves.
 */
extern cpumask_t sched_overloaded;
#if CPUMASK_WORDS > 1
extern int sched_nr_overloaded;	/* its CPUs: a newly idle CPU asks in O(1), not O(words) */
#endif
static inline void rq_overload_update(struct rq *rq)
{
	bool over = rq->nr_running >= 2;

	/* rq->overloaded mirrors the CPU's bit (both written here, under the lock): no shared line read per enqueue. */
	if (over != rq->overloaded) {
		rq->overloaded = over;
		if (over)
			cpumask_set_atomic(&sched_overloaded, rq->cpu);
		else
			cpumask_clear_atomic(&sched_overloaded, rq->cpu);
#if CPUMASK_WORDS > 1
		__atomic_fetch_add(&sched_nr_overloaded, over ? 1 : -1, __ATOMIC_RELAXED);
#endif
	}
}

/* Is any CPU overloaded? A hint, as the mask: one word, or the count beside a wider mask. */
/*
 * Active balance (pack.h's misfit): @rq's CPU pushes its running @p to
 * @dst when @p next switches out still runnable. From @rq's own tick.
 * recheck_cpu makes the switch look (prev_must_move()): the common switch
 * tests one flag of prev, not the push too.
 */
static inline void rq_request_push(struct rq *rq, struct task *p, int dst)
{
	rq->misfit_dst = dst;
	rq->misfit_push = p;
	p->recheck_cpu = true;
	rq->need_resched = true;
}

static inline bool sched_any_overloaded(void)
{
#if CPUMASK_WORDS > 1
	return READ_ONCE(sched_nr_overloaded) > 0;
#else
	return READ_ONCE(sched_overloaded.w[0]) != 0;
#endif
}

/* Count a wake-up's placement outcome against the CPU the task last ran on. */
static inline void pack_count(int cpu, int why)
{
	KASSERT_DEBUG((unsigned)why < PACK_MAX_REASONS);
	__atomic_fetch_add(&cpu_rq(cpu)->pack_stats[why], 1, __ATOMIC_RELAXED);
}
/* Every rq's copy of @policy's tick hook (include/kernel/pack/pack.h): at boot and at each switch. */
void balance_set_policy_tick(const struct pack_policy *policy);
void nohz_enter_idle(int cpu);
void nohz_exit_idle(int cpu);

/*
 * The idle tick (kernel/sched/core.c; its rules are tested by
 * tests/host/test_tick.c). A CPU's ticks fall on one grid, k x period +
 * rq->tick_skew_ns, however often the tick stops and restarts.
 * tick_slot_after(): the first slot of @rq's grid after @after; @last is the
 * tick's previous expiry (a slot, or TIMER_NEVER), a hint that spares the
 * division when the tick stopped only briefly.
 * tick_start(): restart @rq's stopped tick at the first slot after @now; the
 * CPU leaves the tickless set. IRQs off, on @rq's CPU.
 * tick_stop_idle(): the CPU is going idle: stop its tick (it joins the
 * tickless set) unless another timer is due before the tick, which then
 * wakes it first. Returns the CPU's next timer expiry. IRQs off, on @rq's CPU.
 *
 * Static in the kernel (its hot paths inline them); on the host, for the
 * tests, SCHED_TESTABLE leaves them visible.
 */
#ifdef HOST_BUILD
#define SCHED_TESTABLE
uint64_t tick_slot_after(const struct rq *rq, uint64_t after, uint64_t last);
void tick_start(struct rq *rq, uint64_t now);
uint64_t tick_stop_idle(struct rq *rq);
#else
#define SCHED_TESTABLE static
#endif

#endif
