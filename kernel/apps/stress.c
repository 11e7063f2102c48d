/*
 * `stress <seconds> [seed] [workers] [rt]`: SMP stress of the scheduler, meant
 * for QEMU with real parallel vCPUs (-accel tcg,thread=multi) as well as
 * icount runs. Workers send each other tokens (a counter bump, then
 * wake_up) and consume theirs with task_wait_until(), while they sleep for
 * random times, change their own nice and each other's affinity; a churn
 * task keeps creating and reaping short-lived tasks; another switches the
 * pack mode; another checks the scheduler invariants. At the end every
 * worker must consume exactly the tokens it was sent: a lost wake-up leaves
 * a worker asleep with tokens pending, which the supervisor reports, and a
 * worker checks as it exits that it owes nothing (the test's own
 * bookkeeping). Most waits while the run lasts have short deadlines (a few
 * ms, so that workers keep sending); one in PATIENT_ONE_IN is patient (up to
 * PATIENT_WAIT_NS): a send whose wake-up left its worker asleep for half of
 * it is a wake-up the scheduler lost and the deadline healed, counted as
 * late_wakeups. With `rt`, workers also set their own and each other's
 * policies (SCHED_FIFO, SCHED_RR, SCHED_OTHER; an RT worker sleeps between
 * its operations, as RT tasks do) and debug kernels check the RT class's
 * invariant on every tick. Beside them, workers on the kernel's sleeping locks
 * (kernel/apps/stress_sync.c) check mutual exclusion, condition variables,
 * barriers and semaphores. In debug kernels the starvation detector
 * (include/kernel/debug/sched_report.h) is on for the run: a task left waiting on
 * a CPU that ticks fails the run at once, not after the drain.
 *
 * The run ends with one verdict line, the only one tests need:
 *   stress: PASS|FAIL seed= seconds= workers= tokens_sent= tokens_owed=
 *     tokens_consumed= lost= late_wakeups= owing= sync_violations= starving=
 *     rt_breaks= sleeps= ... invariant_checks= slowest_send_us=
 * PASS only when every count of trouble is 0 and sent = owed = consumed.
 * slowest_send_us is not a count of trouble: the longest send (stamp to
 * woken stamp, IRQs off), i.e. how long the host left a vCPU unrun.
 */

#include <string.h>

#include "arch/barrier.h"
#include "arch/cpu.h"
#include "kernel/lib/cmdline.h"
#include "kernel/lib/printk.h"
#include "kernel/lib/random.h"
#include "kernel/sched/sched.h"
#include "kernel/debug/sched_report.h"
#include "kernel/console/shell.h"
#include "kernel/apps/stress_sync.h"
#include "kernel/time/time.h"
#include "kernel/time/timer.h"
#include "kernel/sched/topology.h"

#define STRESS_MAX_WORKERS 400
#define DRAIN_TIMEOUT_NS (10ull * NSEC_PER_SEC)
#define PATIENT_ONE_IN 16
#define PATIENT_WAIT_NS (1000ull * NSEC_PER_MSEC)

struct worker {
	struct task *task;
	uint32_t rng;
	volatile uint32_t pending;	/* tokens sent, not yet consumed */
	volatile uint32_t owed;		/* tokens sent in total */
	uint64_t first_sent_ns;		/* the first send to end in a patient wait (0: none yet; the wait resets it) */
	uint64_t wakeups_before;	/* the task's nr_wakeups when its patient wait began */
	uint64_t last_woken_ns;		/* latest sender's wake_up() that made it runnable (atomic max) */
	uint32_t consumed;
	uint32_t sent, affinity_changes, nice_changes, policy_changes, sleeps;
};

static struct {
	struct worker w[STRESS_MAX_WORKERS];
	int nr;
	uint64_t end_ns;
	uint32_t all_mask;
	volatile uint32_t go;			/* every worker exists: start */
	volatile uint32_t stop;			/* helpers stop */
	volatile uint32_t done_sending, finished;
	volatile uint32_t owing;		/* workers that exited owing tokens */
	volatile uint32_t late_wakeups;		/* patient waits ended by their deadline with a stale token */
	volatile uint32_t churned, pack_switches, checks;
	uint64_t slowest_send_ns;		/* longest stamp-to-wake_up() of a send (atomic max) */
	bool running;
	bool rt;				/* `rt`: workers also change policies (SCHED_FIFO, SCHED_RR) */
	uint32_t rt_breaks_before;		/* rt_invariant_breaks() when the run began */
} st;

/* *@at = max(*@at, @t): senders race. */
static void stamp_max(uint64_t *at, uint64_t t)
{
	uint64_t seen = __atomic_load_n(at, __ATOMIC_RELAXED);

	while (seen < t && !__atomic_compare_exchange_n(at, &seen, t, false, __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		;
}

/*
 * A send: the token lands (pending), wake_up(), then the stamps: woken (if
 * wake_up() made the task runnable) and sent (in any case: the first send
 * to end in a patient wait), so that a stamped send is one whose wake-up
 * has been done. IRQs are off throughout,
 * so the sender cannot be preempted in the middle and the stamps say when
 * it happened: a sender at nice 19 behind a crowd waits, fairly, for many
 * seconds (sends preempted mid-way took up to 59 s under parallel vCPUs).
 * What is left between a send's first and last instruction is this CPU's
 * own work, its spins on run-queue locks and the host's stalls of its vCPU:
 * slowest_send_us in the verdict.
 */
static void send_token(struct worker *to)
{
	unsigned long flags = arch_irq_save();
	uint64_t t0 = arch_now_ns(), t1;

	__atomic_fetch_add(&to->owed, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&to->pending, 1, __ATOMIC_RELEASE);
	if (wake_up(to->task))
		stamp_max(&to->last_woken_ns, arch_now_ns());
	t1 = arch_now_ns();
	__atomic_compare_exchange_n(&to->first_sent_ns, &(uint64_t){ 0 }, t1, false, __ATOMIC_RELEASE,
				    __ATOMIC_RELAXED);
	stamp_max(&st.slowest_send_ns, t1 - t0);
	arch_irq_restore(flags);
}

/*
 * Every sender has stopped and @me has taken all it was sent. done_sending
 * first, with acquire: a sender counts itself done after its last send, so
 * once all are done every owed count is final and visible (read the other
 * way round, a send could land between the two reads).
 */
static bool all_tokens_in(const struct worker *me)
{
	return __atomic_load_n(&st.done_sending, __ATOMIC_ACQUIRE) == (uint32_t)st.nr &&
	       me->consumed == __atomic_load_n(&me->owed, __ATOMIC_RELAXED);
}

/*
 * A patient wait (@span long, to @deadline) has seen a token. Did a send
 * end (its wake_up() done) in the wait's first half, with no sender's
 * wake_up() having made the task runnable in the wait, and the task made
 * runnable (activate() stamps wait_start_ns) only half a span or more after
 * that send, at its deadline? Then that wake_up() found the task asleep and
 * did not wake it: the wake-up was lost and the timer healed it (a send
 * that ends after the deadline found the task already woken by its timer,
 * perhaps late on a stalled host, and rightly left it). The first send,
 * not the latest: senders keep coming, and one that ends just before the
 * deadline says nothing of the earlier ones. Delays that are not the
 * scheduler's do not count: a send still under way when the task woke has
 * not ended (it is not stamped); a task a sender did wake (perhaps for an
 * earlier token: a later sender then finds it runnable, and its token
 * rides along) but that then waited in a run queue (at nice 19 beside nice
 * -20 workers) and was re-queued late by an affinity change or the
 * balancer (both stamp wait_start_ns again) was delayed, not lost: the
 * starvation detector judges that. Nor does a task that never slept:
 * preempted before its wait could sleep, it waits in run queues as a
 * runnable task (a migration stamps wait_start_ns late) and finds the
 * token when it runs; no wake_up() counts for it in the wait.
 */
static long long since_us(uint64_t t, uint64_t from)
{
	return ((long long)t - (long long)from) / (long long)NSEC_PER_USEC;
}

static void check_late(struct worker *me, uint64_t deadline, uint64_t span)
{
	uint64_t now = arch_now_ns(), sent_at = __atomic_load_n(&me->first_sent_ns, __ATOMIC_ACQUIRE);
	uint64_t made_runnable = READ_ONCE(me->task->wait_start_ns);
	uint64_t woken_at = __atomic_load_n(&me->last_woken_ns, __ATOMIC_ACQUIRE);

	/* Never woken since the wait began: it never slept (preempted before it could), so nothing was lost. */
	if (me->task->nr_wakeups == me->wakeups_before)
		return;
	if (now < deadline || !sent_at || sent_at + span / 2 > deadline || made_runnable < sent_at + span / 2 ||
	    woken_at >= deadline - span)
		return;
	__atomic_fetch_add(&st.late_wakeups, 1, __ATOMIC_RELAXED);
	kprintf("stress: LOST WAKE-UP: worker %d (task %u) slept %llu ms, made runnable %llu ms after a send to it "
		"ended\n", (int)(me - st.w), (unsigned)me->task->tid, (unsigned long long)(span / NSEC_PER_MSEC),
		(unsigned long long)((made_runnable - sent_at) / NSEC_PER_MSEC));
	/* In us from the wait's start: what the history below (debug kernels) is read against. */
	kprintf("stress:   wait from %llu us: first send ended %+lld, last woken %+lld, made runnable %+lld, now %+lld\n",
		(unsigned long long)((deadline - span) / NSEC_PER_USEC), since_us(sent_at, deadline - span),
		since_us(woken_at, deadline - span), since_us(made_runnable, deadline - span),
		since_us(now, deadline - span));
	sched_report_task("stress:   ", me->task);
}

static void consume(struct worker *me, uint64_t deadline, uint64_t span)
{
	/*
	 * Before the wait's first look at pending (task_wait_until() reads it
	 * after this full barrier): a send stamped before the reset landed its
	 * token before it too, and the wait returns at once with it.
	 */
	if (span) {
		me->wakeups_before = me->task->nr_wakeups;	/* running: nobody wakes it now */
		__atomic_store_n(&me->first_sent_ns, 0, __ATOMIC_RELAXED);
		smp_mb();
	}
	while (task_wait_until(&me->pending, deadline)) {
		if (span)
			check_late(me, deadline, span);
		__atomic_fetch_sub(&me->pending, 1, __ATOMIC_ACQUIRE);
		me->consumed++;
		if (deadline != TIMER_NEVER || all_tokens_in(me))
			return;
	}
}

static uint32_t random_mask(uint32_t *rng)
{
	uint32_t m = xorshift32(rng) & st.all_mask;

	return m ? m : st.all_mask;
}

/*
 * A worker's (its own or another's, queued, running or asleep) policy:
 * SCHED_OTHER, SCHED_FIFO or SCHED_RR at a random priority, so the RT
 * class's push, pull and class changes run under the same stress.
 */
static void change_policy(struct worker *me)
{
	uint32_t r = xorshift32(&me->rng);
	struct worker *w = r & 1u ? me : &st.w[(r >> 1) % (uint32_t)st.nr];
	int policy = (int)((r >> 12) % 3);	/* SCHED_OTHER 0, SCHED_FIFO 1, SCHED_RR 2 */

	if (task_setscheduler(w->task, policy, policy == SCHED_OTHER ? 0 : 1 + (int)((r >> 16) % RT_PRIO_MAX)) == 0)
		me->policy_changes++;
}

static void worker_fn(void *arg)
{
	struct worker *me = arg;

	/* Tokens need targets: wait until every worker's task exists. */
	while (!READ_ONCE(st.go))
		task_sleep_ns(NSEC_PER_MSEC);
	while (arch_now_ns() < st.end_ns) {
		uint32_t r = xorshift32(&me->rng);

		switch (r % 8) {
		case 0:
		case 1:
		case 2:
			send_token(&st.w[xorshift32(&me->rng) % (uint32_t)st.nr]);
			me->sent++;
			break;
		case 3:
			task_sleep_ns(xorshift32(&me->rng) % 2000 * NSEC_PER_USEC);
			me->sleeps++;
			break;
		case 4:
			task_set_affinity(st.w[xorshift32(&me->rng) % (uint32_t)st.nr].task, random_mask(&me->rng));
			me->affinity_changes++;
			break;
		case 5:
			if (!st.rt || (r & 0x300)) {
				task_set_nice(me->task, (int)(xorshift32(&me->rng) % 40) - 20);
				me->nice_changes++;
			} else {
				change_policy(me);
			}
			break;
		default:
			if (xorshift32(&me->rng) % PATIENT_ONE_IN == 0) {
				uint64_t now = arch_now_ns(), until = now + PATIENT_WAIT_NS;

				if (until > st.end_ns)
					until = st.end_ns;
				if (until > now)
					consume(me, until, until - now);
			} else {
				consume(me, arch_now_ns() + xorshift32(&me->rng) % 3000 * NSEC_PER_USEC, 0);
			}
			break;
		}
		/*
		 * A real-time worker behaves as RT tasks do, briefly between
		 * sleeps: a hundred of them looping flat out would take every CPU
		 * but the throttled 5% from the fair workers, which is RT's
		 * meaning, not a lost wake-up.
		 */
		if (READ_ONCE(me->task->prio) > 0)
			task_sleep_ns((200 + xorshift32(&me->rng) % 800) * NSEC_PER_USEC);
	}
	/* Drain: everyone stops sending, then each takes exactly what it was sent. */
	__atomic_fetch_add(&st.done_sending, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&st.done_sending, __ATOMIC_ACQUIRE) < (uint32_t)st.nr)
		task_sleep_ns(NSEC_PER_MSEC);
	if (!all_tokens_in(me))
		consume(me, TIMER_NEVER, 0);
	/* Nothing can arrive any more: what is not in now never will be. */
	if (me->consumed != READ_ONCE(me->owed)) {
		__atomic_fetch_add(&st.owing, 1, __ATOMIC_RELAXED);
		kprintf("stress: worker %d (task %u) exits owing tokens: owed %u consumed %u pending %u\n",
			(int)(me - st.w), (unsigned)me->task->tid, (unsigned)READ_ONCE(me->owed),
			(unsigned)me->consumed, (unsigned)READ_ONCE(me->pending));
	}
	__atomic_fetch_add(&st.finished, 1, __ATOMIC_RELEASE);
}

static void short_fn(void *arg)
{
	volatile uint32_t sink = 0;
	uint32_t n = (uint32_t)(uintptr_t)arg;

	for (uint32_t i = 0; i < n; i++)
		sink += i;
	if (n & 1)
		task_sleep_ns(n * 10);
}

static void churn_fn(void *arg)
{
	uint32_t rng = (uint32_t)(uintptr_t)arg | 1;

	while (!READ_ONCE(st.stop)) {
		struct task *t = task_create("short", short_fn, (void *)(uintptr_t)(xorshift32(&rng) % 20000),
					     (int)(xorshift32(&rng) % 40) - 20, random_mask(&rng));

		if (t) {
			if (xorshift32(&rng) & 1)
				task_detach(t);
			else
				task_join(t);
			__atomic_fetch_add(&st.churned, 1, __ATOMIC_RELAXED);
		}
		task_sleep_ns(xorshift32(&rng) % 500 * NSEC_PER_USEC);
	}
}

static void packer_fn(void *arg)
{
	uint32_t rng = (uint32_t)(uintptr_t)arg | 1;

	while (!READ_ONCE(st.stop)) {
		pack_set_policy(pack_policy_at((int)(xorshift32(&rng) % (uint32_t)pack_policy_count())));
		__atomic_fetch_add(&st.pack_switches, 1, __ATOMIC_RELAXED);
		task_sleep_ns(200 * NSEC_PER_MSEC);
	}
	pack_set_policy(PACK_DEFAULT_POLICY);
}

static void checker_fn(void *arg)
{
	(void)arg;
	while (!READ_ONCE(st.stop)) {
		sched_check_invariants();	/* panics on a broken invariant */
		__atomic_fetch_add(&st.checks, 1, __ATOMIC_RELAXED);
		task_sleep_ns(100 * NSEC_PER_MSEC);
	}
}

/* Something already says the run has failed: a starving task (debug kernels) or a worker that exited owing. */
static bool failed_early(uint32_t starve_before)
{
	return starve_reports() != starve_before || READ_ONCE(st.owing) != 0 ||
	       rt_invariant_breaks() != st.rt_breaks_before;
}

/* Sleep in @step_ns steps until @until, or until the run has failed. */
static void supervise(uint64_t until, uint64_t step_ns, uint32_t starve_before)
{
	while (arch_now_ns() < until && !failed_early(starve_before))
		task_sleep_ns(step_ns);
}

static int cmd_stress(int argc, char **argv)
{
	unsigned long secs, seed = 1, nr = 200;
	struct task *helpers[3];
	uint64_t sent = 0, owed = 0, consumed = 0, aff = 0, nice = 0, policy = 0, sleeps = 0;
	uint32_t starve_before, starve_was;
	int lost = 0, sync_violations;
	uint32_t late;
	bool early, pass;
	uint64_t kicks_before, kicks, backlogs_before, backlogs;

	bool rt = argc > 1 && strcmp(argv[argc - 1], "rt") == 0;

	if (rt)
		argc--;
	if (argc < 2 || argc > 4 || !cmdline_parse_ulong(argv[1], 1, 3600, &secs) ||
	    (argc > 2 && !cmdline_parse_ulong(argv[2], 0, 0xffffffffu, &seed)) ||
	    (argc > 3 && !cmdline_parse_ulong(argv[3], 2, STRESS_MAX_WORKERS, &nr))) {
		kprintf("error: usage: stress <seconds 1..3600> [seed] [workers 2..%d] [rt]\n", STRESS_MAX_WORKERS);
		return 1;
	}
	if (st.running) {
		kprintf("error: stress is already running\n");
		return 1;
	}
	st.running = true;
	st.rt = rt;
	st.nr = (int)nr;
	st.all_mask = sched_possible_mask();
	st.go = st.stop = st.done_sending = st.finished = st.churned = st.pack_switches = st.checks = st.owing = 0;
	st.late_wakeups = 0;
	st.slowest_send_ns = 0;
	st.end_ns = arch_now_ns() + (uint64_t)secs * NSEC_PER_SEC;
	starve_was = starve_limit_ms();
	starve_before = starve_reports();
	st.rt_breaks_before = rt_invariant_breaks();
	kicks_before = sched_timer_kicks();
	backlogs_before = timer_backlog_breaks();
#ifdef CONFIG_SCHED_DEBUG
	/* A task left waiting on a CPU that ticks fails the run at once. */
	if (!starve_was)
		starve_set_limit_ms(STARVE_DEFAULT_MS);
	kprintf("stress: starvation detector on: %u ms\n", (unsigned)starve_limit_ms());
#endif
	for (int i = 0; i < st.nr; i++) {
		struct worker *w = &st.w[i];

		*w = (struct worker){ .rng = (uint32_t)(seed * 2654435761u + (uint32_t)i * 40503u) | 1 };
	}
	/* Every worker exists before any runs: tokens always have a target. */
	for (int i = 0; i < st.nr; i++) {
		st.w[i].task = task_create("worker", worker_fn, &st.w[i], 0, st.all_mask);
		if (!st.w[i].task) {
			kprintf("error: stress: no task slot for worker %d\n", i);
			st.end_ns = 0;
			st.nr = i;
			break;
		}
	}
	smp_mb();
	st.go = 1;
	helpers[0] = task_create("churn", churn_fn, (void *)(uintptr_t)(seed + 1), 0, st.all_mask);
	helpers[1] = task_create("packer", packer_fn, (void *)(uintptr_t)(seed + 2), 0, st.all_mask);
	helpers[2] = task_create("checker", checker_fn, NULL, 0, st.all_mask);
	stress_sync_start((uint32_t)seed, st.all_mask);
	supervise(st.end_ns, 50 * NSEC_PER_MSEC, starve_before);
	/* Joining the sync workers waits on the scheduler: not after it has failed. */
	if (!failed_early(starve_before))
		stress_sync_stop();
	while (READ_ONCE(st.finished) < (uint32_t)st.nr && !failed_early(starve_before) &&
	       arch_now_ns() < st.end_ns + DRAIN_TIMEOUT_NS)
		task_sleep_ns(10 * NSEC_PER_MSEC);
	/*
	 * Counted before any join: a worker that never got its tokens never
	 * ends, and joining it would hang the console instead of failing. A
	 * run that failed early is mid-way: its workers' counts are partial,
	 * and only the failure counts below mean anything.
	 */
	early = failed_early(starve_before);
	for (int i = 0; i < st.nr; i++) {
		struct worker *w = &st.w[i];

		sent += w->sent;
		owed += READ_ONCE(w->owed);
		consumed += w->consumed;
		aff += w->affinity_changes;
		nice += w->nice_changes;
		policy += w->policy_changes;
		sleeps += w->sleeps;
		if (!early && w->consumed != READ_ONCE(w->owed)) {
			lost++;
			kprintf("stress: LOST WAKE-UP? worker %d (task %u, %s on cpu%d): owed %u consumed %u pending %u\n",
				i, (unsigned)w->task->tid, task_state_name(w->task), w->task->cpu, (unsigned)w->owed,
				(unsigned)w->consumed, (unsigned)w->pending);
			sched_report_task("stress:   ", w->task);	/* where it has been (debug kernels) */
		}
	}
	sync_violations = stress_sync_violations();
	late = READ_ONCE(st.late_wakeups);
	pass = !early && !lost && !late && !sync_violations && sent == owed && owed == consumed;
	if (!pass) {
		/* The workers are left as they are (st.running stays set: no second run over them). */
		for (int cpu = 0; cpu < sched_nr_cpus(); cpu++)
			sched_report_cpu("stress: ", cpu);
		if (early && arch_now_ns() < st.end_ns)
			kprintf("stress: failed before the end of the run\n");
	} else {
		for (int i = 0; i < st.nr; i++)
			task_join(st.w[i].task);
		st.stop = 1;
		for (int i = 0; i < 3; i++)
			if (helpers[i])
				task_join(helpers[i]);
		sched_check_invariants();
		starve_set_limit_ms(starve_was);
		st.running = false;
	}
	/* Not failures of the scheduler (every token arrived): what a slow or overloaded host did to the timers. */
	kicks = sched_timer_kicks() - kicks_before;
	if (kicks)
		kprintf("stress: %llu timer interrupts did not come: the watchdog's kicks ran their timers\n",
			(unsigned long long)kicks);
	backlogs = timer_backlog_breaks() - backlogs_before;
	if (backlogs)
		kprintf("stress: %llu timer interrupts left a backlog of due timers to the next (budget %llu us)\n",
			(unsigned long long)backlogs, (unsigned long long)(TIMERS_RUN_BUDGET_NS / NSEC_PER_USEC));
	/* The verdict, last: every way this run can fail, counted (the module comment). */
	kprintf("stress: %s seed=%lu seconds=%lu workers=%d tokens_sent=%llu tokens_owed=%llu tokens_consumed=%llu "
		"lost=%d late_wakeups=%u owing=%u sync_violations=%d starving=%u rt_breaks=%u sleeps=%llu "
		"affinity_changes=%llu nice_changes=%llu policy_changes=%llu churned=%u pack_switches=%u "
		"invariant_checks=%u slowest_send_us=%llu\n",
		pass ? "PASS" : "FAIL", seed, secs, st.nr, (unsigned long long)sent, (unsigned long long)owed,
		(unsigned long long)consumed, lost, (unsigned)late, (unsigned)READ_ONCE(st.owing), sync_violations,
		(unsigned)(starve_reports() - starve_before), (unsigned)(rt_invariant_breaks() - st.rt_breaks_before),
		(unsigned long long)sleeps, (unsigned long long)aff, (unsigned long long)nice,
		(unsigned long long)policy, (unsigned)st.churned, (unsigned)st.pack_switches, (unsigned)st.checks,
		(unsigned long long)(st.slowest_send_ns / NSEC_PER_USEC));
	return pass ? 0 : 1;
}

static const struct shell_cmd commands[] = {
	{ "stress", "<seconds> [seed] [workers] [rt]",
	  "SMP scheduler stress: no lost wake-ups, invariants (rt: real-time workers too)", cmd_stress },
};

SHELL_COMMANDS(commands);
