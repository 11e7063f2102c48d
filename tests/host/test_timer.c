/*
 * Per-CPU timer heaps (kernel/time/timer.c): expiry order, cancel, and the
 * budget of one timers_run() (a backlog is left to the next interrupt, not
 * run with IRQs off to the end). The host port's clock moves only
 * when a test moves it, so the callbacks below take the time they say.
 */
#include "ktest.h"
#include "kernel/time/time.h"
#include "kernel/time/timer.h"
#include "tools/ports/host/host_arch.h"

#define T0 (5ull * NSEC_PER_SEC)

static struct timer tm[8];
static int order[8], nr_run;
static uint64_t cost_ns;	/* what each callback "takes" */

static void record_fn(struct timer *t)
{
	order[nr_run++] = (int)(t - tm);
	host_fake_now += cost_ns;
}

static void setup(void)
{
	timers_init_cpu(0);
	host_set_cpu_id(0);
	host_fake_now = T0;
	nr_run = 0;
	cost_ns = 0;
	for (int i = 0; i < 8; i++)
		timer_setup(&tm[i], record_fn, NULL);
}

KT_CASE(timers_run_in_expiry_order_and_cancel_removes)
{
	const uint64_t at[6] = { 40, 10, 30, 50, 20, 60 };
	struct timers_diag td;

	setup();
	for (int i = 0; i < 6; i++)
		timer_arm(&tm[i], T0 + at[i] * NSEC_PER_USEC);
	KT_ASSERT_EQ(timers_nr_pending(0), 6u);
	KT_ASSERT(timer_cancel(&tm[2]));
	KT_ASSERT(!timer_cancel(&tm[2]));
	timers_diag(0, &td);
	KT_ASSERT_EQ(td.programmed, T0 + 10 * NSEC_PER_USEC);
	host_fake_now = T0 + 45 * NSEC_PER_USEC;
	timers_run(host_fake_now);
	KT_ASSERT_EQ(nr_run, 3);
	KT_ASSERT(order[0] == 1 && order[1] == 4 && order[2] == 0);
	KT_ASSERT_EQ(timers_next_expiry(0), T0 + 50 * NSEC_PER_USEC);
	timers_diag(0, &td);
	KT_ASSERT_EQ(td.programmed, T0 + 50 * NSEC_PER_USEC);
	KT_ASSERT(!td.running && td.callbacks_run == 3);
}

KT_CASE(a_backlog_is_left_to_the_next_interrupt_after_a_gap)
{
	struct timers_diag td;
	uint64_t breaks = timer_backlog_breaks(), start;

	setup();
	for (int i = 0; i < 8; i++)
		timer_arm(&tm[i], T0);
	/* 200 us each: three fit in the 500 us budget's check (0, 200, 400 us spent), the fourth does not. */
	cost_ns = 200 * NSEC_PER_USEC;
	start = host_fake_now = T0 + NSEC_PER_USEC;
	timers_run(start);
	KT_ASSERT_EQ(nr_run, 3);
	KT_ASSERT_EQ(timer_backlog_breaks(), breaks + 1);
	timers_diag(0, &td);
	/* The rest is due, but the hardware waits as long again as the run took (600 us). */
	KT_ASSERT_EQ(td.nr, 5u);
	KT_ASSERT_EQ(td.next, T0);
	KT_ASSERT_EQ(td.programmed, start + 2 * 600 * NSEC_PER_USEC);
	KT_ASSERT_EQ(td.last_run_ns, start);
	/* A timer armed in the gap does not pull the interrupt into it. */
	timer_arm(&tm[5], T0 + 1);
	timers_diag(0, &td);
	KT_ASSERT_EQ(td.programmed, start + 2 * 600 * NSEC_PER_USEC);
	/* Long callbacks: one per interrupt, and the gap is capped at 1 ms. */
	cost_ns = 5 * NSEC_PER_MSEC;
	start = host_fake_now = td.programmed;
	timers_run(start);
	KT_ASSERT_EQ(nr_run, 4);
	timers_diag(0, &td);
	KT_ASSERT_EQ(td.programmed, start + 5 * NSEC_PER_MSEC + TIMERS_BACKLOG_GAP_MAX_NS);
	/* Quick ones again: the rest of the backlog in one run, nothing left, nothing programmed. */
	cost_ns = 10 * NSEC_PER_USEC;
	host_fake_now = td.programmed;
	timers_run(host_fake_now);
	KT_ASSERT_EQ(nr_run, 8);
	KT_ASSERT_EQ(timers_nr_pending(0), 0u);
	timers_diag(0, &td);
	KT_ASSERT_EQ(td.programmed, TIMER_NEVER);
	KT_ASSERT_EQ(timer_backlog_breaks(), breaks + 2);
	/* Every timer ran once: none lost, none twice. */
	for (int i = 0; i < 8; i++) {
		int seen = 0;

		for (int j = 0; j < nr_run; j++)
			seen += order[j] == i;
		KT_ASSERT_EQ(seen, 1);
	}
}

/*
 * The heap against a reference: 64 timers armed, re-armed later and
 * earlier (the tick's in-place move) and cancelled at random (fixed seed),
 * then run in steps: each step runs exactly the due ones, in expiry order,
 * and the programmed time is always the earliest pending expiry.
 */
#define NH 64
static struct timer heap_tm[NH];
static uint64_t heap_at[NH], last_run_at;
static bool heap_armed[NH], heap_order_ok;
static int heap_ran;

static void heap_fn(struct timer *t)
{
	int i = (int)(t - heap_tm);

	if (!heap_armed[i] || heap_at[i] < last_run_at || heap_at[i] > host_fake_now)
		heap_order_ok = false;
	last_run_at = heap_at[i];
	heap_armed[i] = false;
	heap_ran++;
}

KT_CASE(heap_keeps_expiry_order_through_rearms_and_cancels)
{
	uint32_t rng = 12345;

	setup();
	heap_order_ok = true;
	for (int i = 0; i < NH; i++)
		timer_setup(&heap_tm[i], heap_fn, NULL);
	for (int round = 0; round < 20; round++) {
		uint64_t now = host_fake_now, earliest = TIMER_NEVER;
		struct timers_diag td;
		int due = 0;

		for (int op = 0; op < 200; op++) {
			int i;

			rng = rng * 1103515245u + 12345u;
			i = (int)((rng >> 8) % NH);
			rng = rng * 1103515245u + 12345u;
			if ((rng >> 28) == 0 && heap_armed[i]) {
				KT_ASSERT(timer_cancel(&heap_tm[i]));
				heap_armed[i] = false;
				continue;
			}
			heap_at[i] = now + 1 + (rng >> 12) % 1000000;
			heap_armed[i] = true;
			timer_arm(&heap_tm[i], heap_at[i]);
		}
		for (int i = 0; i < NH; i++)
			if (heap_armed[i] && heap_at[i] < earliest)
				earliest = heap_at[i];
		timers_diag(0, &td);
		KT_ASSERT_EQ(td.programmed, earliest);
		KT_ASSERT_EQ(timers_next_expiry(0), earliest);
		/* Run what is due in the next half millisecond. */
		host_fake_now = now + 500000;
		for (int i = 0; i < NH; i++)
			due += heap_armed[i] && heap_at[i] <= host_fake_now;
		heap_ran = 0;
		last_run_at = 0;
		timers_run(host_fake_now);
		KT_ASSERT_EQ(heap_ran, due);
		KT_ASSERT(heap_order_ok);
	}
	for (int i = 0; i < NH; i++)
		if (heap_armed[i])
			timer_cancel(&heap_tm[i]);
	KT_ASSERT_EQ(timers_nr_pending(0), 0u);
}

/*
 * timers_run() programs the hardware after its last callback without
 * locking again when the callback left the earliest timer known: what it
 * arms or moves or cancels there must still end in the right deadline.
 */
static uint64_t cb_arm_at, cb_arm_next;
static struct timer *cb_other;

static void rearm_fn(struct timer *t)
{
	order[nr_run++] = (int)(t - tm);
	timer_arm(t, cb_arm_at);
	cb_arm_at = cb_arm_next;	/* once due again at most */
}

static void move_other_fn(struct timer *t)
{
	order[nr_run++] = (int)(t - tm);
	timer_arm(cb_other, cb_arm_at);
}

static void cancel_other_fn(struct timer *t)
{
	order[nr_run++] = (int)(t - tm);
	timer_cancel(cb_other);
}

/* tm[0] calls @fn at T0 + 10, one-shots follow at T0 + 50 and (@nr 3) T0 + 70. */
static void arm_first_with(timer_fn fn, int nr)
{
	setup();
	timer_setup(&tm[0], fn, NULL);
	timer_arm(&tm[0], T0 + 10);
	for (int i = 1; i < nr; i++)
		timer_arm(&tm[i], T0 + 30 + 20 * (uint64_t)i);
}

/* timers_run() at @now; the deadline it left programmed (0, never one, if it still says running). */
static uint64_t run_at(uint64_t now, struct timers_diag *td)
{
	timers_run(host_fake_now = now);
	timers_diag(0, td);
	return td->running ? 0 : td->programmed;
}

KT_CASE(callbacks_that_arm_move_or_cancel_leave_the_right_deadline)
{
	struct timers_diag td;

	/* Re-armed later than the next timer: that one is programmed. */
	arm_first_with(rearm_fn, 2);
	cb_arm_at = cb_arm_next = T0 + 90;
	KT_ASSERT_EQ(run_at(T0 + 20, &td), T0 + 50);
	KT_ASSERT(nr_run == 1 && td.callbacks_run == 1);
	/* Re-armed earlier than the next timer, not yet due: the re-armed one is programmed. */
	arm_first_with(rearm_fn, 2);
	cb_arm_at = cb_arm_next = T0 + 30;
	KT_ASSERT_EQ(run_at(T0 + 20, &td), T0 + 30);
	/* Re-armed already due: it runs again in the same call, then waits for its new expiry. */
	arm_first_with(rearm_fn, 2);
	cb_arm_at = T0 + 15;
	cb_arm_next = T0 + 40;
	KT_ASSERT_EQ(run_at(T0 + 20, &td), T0 + 40);
	KT_ASSERT(nr_run == 2 && order[0] == 0 && order[1] == 0 && td.callbacks_run == 2);
	/* The next timer moved later by the callback: the new earliest is programmed. */
	arm_first_with(move_other_fn, 3);
	cb_other = &tm[1];
	cb_arm_at = T0 + 100;
	KT_ASSERT_EQ(run_at(T0 + 20, &td), T0 + 70);
	/* The next timer cancelled by the callback: the one after it is programmed. */
	arm_first_with(cancel_other_fn, 3);
	cb_other = &tm[1];
	KT_ASSERT_EQ(run_at(T0 + 20, &td), T0 + 70);
	KT_ASSERT(!timer_pending(&tm[1]));
	/* The last timer cancelled: nothing is programmed. */
	arm_first_with(cancel_other_fn, 2);
	KT_ASSERT_EQ(run_at(T0 + 20, &td), TIMER_NEVER);
}

/* A periodic timer is one period on before its callback runs; the callback may still move or cancel it. */
static uint64_t periodic_want;	/* the expiry its callback must see */
static bool periodic_pending;

static void periodic_fn(struct timer *t)
{
	order[nr_run++] = (int)(t - tm);
	periodic_pending = timer_pending(t) && t->expires == periodic_want;
	if (cb_arm_at)
		timer_arm(t, cb_arm_at);	/* held back, as a late tick is */
	else if (cb_other)
		timer_cancel(t);
}

KT_CASE(a_periodic_timer_moves_on_before_its_callback)
{
	struct timers_diag td;

	setup();
	cb_arm_at = 0;
	cb_other = NULL;
	timer_setup(&tm[0], periodic_fn, NULL);
	timer_set_period(&tm[0], 100);
	timer_arm(&tm[0], T0 + 10);
	timer_arm(&tm[1], T0 + 150);
	periodic_want = T0 + 110;
	KT_ASSERT_EQ(run_at(T0 + 20, &td), T0 + 110);
	KT_ASSERT(nr_run == 1 && periodic_pending && timers_nr_pending(0) == 2);
	/* Due again at T0 + 110: its callback moves it to T0 + 1000; the one-shot at T0 + 150 runs after it. */
	periodic_want = T0 + 210;
	cb_arm_at = T0 + 1000;
	KT_ASSERT_EQ(run_at(T0 + 215, &td), T0 + 1000);
	KT_ASSERT(nr_run == 3 && periodic_pending && order[1] == 0 && order[2] == 1 && tm[0].expires == T0 + 1000);
	/* Cancelled by its callback: nothing left, nothing programmed. */
	periodic_want = T0 + 1100;
	cb_arm_at = 0;
	cb_other = &tm[0];
	KT_ASSERT_EQ(run_at(T0 + 1000, &td), TIMER_NEVER);
	KT_ASSERT(nr_run == 4 && periodic_pending && !timer_pending(&tm[0]));
}
