/* Per-CPU timer heaps; see include/kernel/time/timer.h. */
#include "kernel/time/timer.h"

#include <stddef.h>

#include "arch/barrier.h"
#include "arch/cpu.h"
#include "arch/spinlock.h"
#include "kernel/debug/inject.h"
#include "kernel/lib/panic.h"

struct timer_base {
	spinlock_t lock;
	unsigned int nr;
	bool running;		/* timers_run() is calling back: it programs at the end */
	/*
	 * Set by this CPU's timer_arm() of a pending timer and timer_cancel():
	 * since timers_run() last cleared it, the earliest timer may have
	 * become a later one. Written and read by this CPU only (timers_run()).
	 */
	bool touched;
	uint64_t programmed;
	/*
	 * Around a callback of timers_run(): the earliest expiry in the heap
	 * unless `touched` (timer_arm() of a new timer lowers it). Written by
	 * this CPU only, read by timers_run() without the lock.
	 */
	uint64_t run_next;
	uint64_t cb_now;	/* when the callback in progress began (timers_cb_now()); this CPU's */
	uint64_t last_run_ns;	/* when timers_run() last started (the watchdog's progress) */
	timer_fn current_fn;	/* the callback being run, if any (diagnostics) */
	unsigned int callbacks_run;	/* by the timers_run() in progress or last (diagnostics) */
	uint64_t resume_ns;	/* a backlog left by timers_run(): not to fire before this */
	uint64_t backlog_breaks;	/* how often timers_run() left one (diagnostics, racy sums) */
	struct timer *heap[TIMERS_PER_CPU];
};

static struct timer_base bases[CONFIG_NR_CPUS];

static bool earlier(const struct timer *a, const struct timer *b)
{
	return a->expires < b->expires;
}

static void place(struct timer_base *b, unsigned int i, struct timer *t)
{
	b->heap[i] = t;
	t->heap_index = (int)i;
}

static void sift_up(struct timer_base *b, unsigned int i)
{
	struct timer *t = b->heap[i];

	while (i > 0) {
		unsigned int parent = (i - 1) / 2;

		if (!earlier(t, b->heap[parent]))
			break;
		place(b, i, b->heap[parent]);
		i = parent;
	}
	place(b, i, t);
}

static void sift_down(struct timer_base *b, unsigned int i)
{
	struct timer *t = b->heap[i];

	for (;;) {
		unsigned int l = 2 * i + 1, r = l + 1, m = i;
		struct timer *best = t;

		if (l < b->nr && earlier(b->heap[l], best)) {
			m = l;
			best = b->heap[l];
		}
		if (r < b->nr && earlier(b->heap[r], best))
			m = r;
		if (m == i)
			break;
		place(b, i, b->heap[m]);
		i = m;
	}
	place(b, i, t);
}

static void heap_remove(struct timer_base *b, struct timer *t)
{
	unsigned int i = (unsigned int)t->heap_index;
	struct timer *last;

	KASSERT_DEBUG(i < b->nr && b->heap[i] == t);
	last = b->heap[--b->nr];
	t->cpu = -1;
	t->heap_index = -1;
	if (last == t)
		return;
	place(b, i, last);
	if (2 * i + 1 < b->nr)	/* a leaf has nothing below it to sift past */
		sift_down(b, i);
	/* Only a hole below the root can need the moved timer to rise (not the expiry path's i == 0). */
	if (i > 0 && last->heap_index == (int)i)
		sift_up(b, i);
}

/* Program the hardware for the earliest timer (or the backlog's resume time) if that changed. */
static void reprogram(struct timer_base *b)
{
	uint64_t next;

	if (b->running)
		return;
	next = b->nr ? b->heap[0]->expires : TIMER_NEVER;
	if (b->nr && next < b->resume_ns)
		next = b->resume_ns;
	if (next != b->programmed) {
		b->programmed = next;
		arch_timer_program(next);
	}
}

void timers_init_cpu(int cpu)
{
	struct timer_base *b = &bases[cpu];

	b->nr = 0;
	b->running = false;
	b->programmed = TIMER_NEVER;
	b->resume_ns = 0;
	b->lock = (spinlock_t)SPINLOCK_INIT;
}

void timer_setup(struct timer *t, timer_fn fn, void *arg)
{
	t->fn = fn;
	t->arg = arg;
	t->cpu = -1;
	t->heap_index = -1;
	t->expires = TIMER_NEVER;
	t->period = 0;
}

void timer_set_period(struct timer *t, uint64_t period_ns)
{
	KASSERT(period_ns > 0 && t->cpu == -1);
	t->period = period_ns;
}

void timer_arm(struct timer *t, uint64_t expires)
{
	int cpu = arch_cpu_id();
	struct timer_base *b = &bases[cpu];
	unsigned long flags = spin_lock_irqsave(&b->lock);

	KASSERT(t->cpu == -1 || t->cpu == cpu);
	if (t->cpu == cpu) {
		/* Re-armed (the tick): move it in the heap rather than remove and insert. */
		bool later = expires > t->expires;

		t->expires = expires;
		if (later)
			sift_down(b, (unsigned int)t->heap_index);
		else
			sift_up(b, (unsigned int)t->heap_index);
		b->touched = true;
	} else {
		KASSERT(b->nr < TIMERS_PER_CPU);
		t->expires = expires;
		t->cpu = cpu;
		place(b, b->nr++, t);
		sift_up(b, b->nr - 1);
		/* A new timer can only bring the earliest forward (the tick's re-arm, from its callback). */
		if (expires < b->run_next)
			b->run_next = expires;
	}
	reprogram(b);
	spin_unlock_irqrestore(&b->lock, flags);
}

bool timer_cancel(struct timer *t)
{
	int cpu = t->cpu;
	struct timer_base *b;
	unsigned long flags;
	bool was = false;

	if (cpu < 0)
		return false;
	b = &bases[cpu];
	flags = spin_lock_irqsave(&b->lock);
	/* Re-check under the lock: the timer may have fired on its CPU meanwhile. */
	// cppcheck-suppress knownConditionTrueFalse ; t->cpu is changed concurrently by its CPU
	if (t->cpu == cpu) {
		heap_remove(b, t);
		was = true;
		if (cpu == arch_cpu_id()) {
			b->touched = true;
			reprogram(b);
		}
	}
	spin_unlock_irqrestore(&b->lock, flags);
	return was;
}

bool timer_pending(const struct timer *t)
{
	return t->cpu >= 0;
}

uint64_t timers_next_expiry(int cpu)
{
	struct timer_base *b = &bases[cpu];
	unsigned long flags = spin_lock_irqsave(&b->lock);
	uint64_t next = b->nr ? b->heap[0]->expires : TIMER_NEVER;

	spin_unlock_irqrestore(&b->lock, flags);
	return next;
}

unsigned int timers_nr_pending(int cpu)
{
	return bases[cpu].nr;
}

bool timers_in_callbacks(int cpu)
{
	return READ_ONCE(bases[cpu].running);
}

uint64_t timers_cb_now(void)
{
	const struct timer_base *b = &bases[arch_cpu_id()];

	KASSERT_DEBUG(b->running);
	return b->cb_now;
}

uint64_t timers_now(void)
{
	const struct timer_base *b = &bases[arch_cpu_id()];

	return b->running ? b->cb_now : arch_now_ns();
}

void timers_diag(int cpu, struct timers_diag *d)
{
	const struct timer_base *b = &bases[cpu];
	/* Timers live in static memory (tasks, bases), so a stale heap[0] still reads safely. */
	const struct timer *first = READ_ONCE(b->nr) ? READ_ONCE(b->heap[0]) : NULL;

	d->nr = READ_ONCE(b->nr);
	d->next = first ? READ_ONCE(first->expires) : TIMER_NEVER;
	d->running = READ_ONCE(b->running);
	d->programmed = READ_ONCE(b->programmed);
	d->last_run_ns = READ_ONCE(b->last_run_ns);
	d->current_fn = (uintptr_t)READ_ONCE(b->current_fn);
	d->callbacks_run = READ_ONCE(b->callbacks_run);
}

/* The end of timers_run(): out of the callbacks, the hardware set for the earliest timer. */
static void timers_run_done(struct timer_base *b, uint64_t next)
{
	b->current_fn = 0;
	b->running = false;
	b->programmed = next;
	arch_timer_program(next);
}

/*
 * Callbacks run without the lock and may arm or cancel timers. Most only
 * wake a task or arm a new timer (the tick re-arms itself), and then the
 * lock need not be taken again after the last callback: the earliest timer
 * left is run_next, kept by timer_arm(). That holds because only this CPU
 * adds to its heap (timer_arm() is local) and its own moves and cancels set
 * `touched`; another CPU can only cancel, which at worst leaves the
 * hardware set for a removed timer, an early interrupt that finds nothing
 * due (as any remote cancel of the earliest timer does). The fields
 * written after the callback (running, current_fn, callbacks_run,
 * programmed) are this CPU's alone: others read them only for diagnostics,
 * and this CPU takes the lock with IRQs masked.
 */
void timers_run(uint64_t now)
{
	struct timer_base *b = &bases[arch_cpu_id()];
	unsigned long flags;

	OPTIMIZER_HIDE_VAR(b);	/* kept, not rebuilt from the CPU number at each use */
	flags = spin_lock_irqsave(&b->lock);

	/* Callbacks re-arm timers (the tick does): program the hardware once, below. */
	b->running = true;
	b->last_run_ns = now;
	b->callbacks_run = 0;
	b->resume_ns = 0;
	while (b->nr && b->heap[0]->expires <= now) {
		struct timer *t = b->heap[0];

		b->cb_now = now;
		if (b->callbacks_run) {
			uint64_t spent = arch_now_ns() - now;

			if (spent >= TIMERS_RUN_BUDGET_NS) {
				/* A backlog: the rest after a gap, in which this CPU schedules (see timer.h). */
				b->resume_ns = now + spent +
					       (spent < TIMERS_BACKLOG_GAP_MAX_NS ? spent : TIMERS_BACKLOG_GAP_MAX_NS);
				b->backlog_breaks++;
				break;
			}
			b->cb_now = now + spent;
		}
		if (t->period) {
			/* Periodic: one period on, a move down from the root (a remove and an insert otherwise). */
			t->expires += t->period;
			sift_down(b, 0);
		} else {
			heap_remove(b, t);
		}
		b->run_next = b->nr ? b->heap[0]->expires : TIMER_NEVER;
		b->touched = false;
		b->current_fn = t->fn;
		spin_unlock_irqrestore(&b->lock, flags);
		inject_delay(INJECT_TIMER);
		t->fn(t);
		if (b->run_next > now && !b->touched) {
			/* Nothing more is due and run_next is the earliest: see above. */
			KASSERT_DEBUG(b->running && b->resume_ns == 0);
			b->callbacks_run++;
			flags = arch_irq_save();
			timers_run_done(b, b->run_next);
			arch_irq_restore(flags);
			return;
		}
		flags = spin_lock_irqsave(&b->lock);
		b->callbacks_run++;
	}
	b->current_fn = 0;
	b->running = false;
	/* The hardware fired: whatever is next must be programmed anew. */
	b->programmed = 0;
	reprogram(b);
	spin_unlock_irqrestore(&b->lock, flags);
}

uint64_t timer_backlog_breaks(void)
{
	uint64_t n = 0;

	for (int cpu = 0; cpu < CONFIG_NR_CPUS; cpu++)
		n += READ_ONCE(bases[cpu].backlog_breaks);
	return n;
}

/*
 * The watchdog's kick (sched_ipi()): the earliest timer is due but its
 * interrupt has not come although this CPU takes IPIs. Run the timers as
 * the interrupt would have; returns how late the earliest was (0: none due,
 * or timers_run() is already under way on this CPU).
 */
uint64_t timers_run_if_late(uint64_t now)
{
	struct timer_base *b = &bases[arch_cpu_id()];
	unsigned long flags = spin_lock_irqsave(&b->lock);
	bool due = !b->running && b->nr && b->heap[0]->expires <= now;
	uint64_t late = due ? now - b->heap[0]->expires : 0;

	spin_unlock_irqrestore(&b->lock, flags);
	if (!due)
		return 0;
	timers_run(now);
	return late ? late : 1;
}

/*
 * This CPU's timer hardware lost its state (a power-down with context loss,
 * include/arch/suspend.h): whatever `programmed` says is no longer in the
 * hardware, so program the earliest timer again. Not from a timer callback
 * (`running`: timers_run() programs at its end anyway).
 */
void timers_resume_local(void)
{
	struct timer_base *b = &bases[arch_cpu_id()];
	unsigned long flags = spin_lock_irqsave(&b->lock);

	KASSERT(!b->running);
	b->programmed = 0;	/* unknown, as after a fired timer: never equal to a deadline */
	reprogram(b);
	spin_unlock_irqrestore(&b->lock, flags);
}
