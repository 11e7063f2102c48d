/*
 * The scheduler's soft-lockup watchdog (kernel/sched/sched_internal.h): off
 * the hot files, called from the tick every WATCHDOG_CHECK_TICKS (one scan
 * of every CPU per ~67 ms machine-wide, below) and from the reschedule IPI
 * when a kick is pending.
 */
#include "arch/ipi.h"
#include "arch/timer.h"
#include "kernel/lib/format.h"
#include "kernel/lib/panic.h"
#include "kernel/lib/printk.h"
#include "kernel/sched/sched_internal.h"
#include "kernel/time/time.h"
#include "kernel/time/timer.h"

/*
 * Soft-lockup watchdog: a CPU whose tick runs (it is not idle) but which
 * has not ticked for WATCHDOG_NS, and has not finished a timer callback
 * for as long, is stuck with IRQs off or spinning in the kernel. Busy CPUs
 * check each other from their ticks (an idle system has nothing to hang);
 * the stuck CPU cannot be interrupted, so the report gives what is known
 * about it and the checker's own backtrace.
 *
 * Before that, a CPU (busy or idle) whose hardware timer was set for a
 * time TIMER_LATE_NS past gets a kick: an IPI whose handler runs its due
 * timers (sched_ipi()) and says how late they were. A CPU that takes the IPI
 * has IRQs on: its timer interrupt did not come (masked or lost at the
 * interrupt controller, `crash timer`; a timer programmed for another
 * deadline than the one recorded), which leaves the CPU stuck for ever if
 * it is idle, where no stall is seen. The kick keeps it alive and the
 * warning is counted (`stress` prints the count). One that does not answer
 * within the stall limit gets the panic, which then says it was kicked.
 */
#define WATCHDOG_NS (2ull * NSEC_PER_SEC)
#define TIMER_LATE_NS (NSEC_PER_SEC)

/* Kick @cpu once per overdue deadline: see above. */
static void watchdog_kick_late_timer(int cpu, const struct timers_diag *td, uint64_t now)
{
	struct rq *rq = cpu_rq(cpu);

	if (td->running || td->programmed == 0 || td->programmed == TIMER_NEVER ||
	    now < td->programmed + TIMER_LATE_NS || READ_ONCE(rq->timer_kicked_for) == td->programmed)
		return;
	WRITE_ONCE(rq->timer_kicked_for, td->programmed);
	WRITE_ONCE(rq->timer_kick_ns, now);
	WRITE_ONCE(rq->timer_kick, true);
	arch_send_reschedule(cpu);
}

/*
 * ", spinning for <lock> held by cpuN (taken at pc), serving ticket T of M;
 * spinning: cpuA=t ...":
 * the lock @cpu waits for (debug kernels on ARM record it), empty if none.
 * A run queue's lock is named; others by address (kernel.map says whose).
 */
static void describe_spin(int cpu, char *out, size_t n)
{
	const spinlock_t *l = spin_waiting(cpu);
	char name[24];
	uintptr_t pc;
	int holder;
	size_t len;

	out[0] = '\0';
	if (!l)
		return;
	ksnprintf(name, sizeof(name), "the lock at 0x%x", (unsigned)(uintptr_t)l);
	for (int i = 0; i < sched_nr_cpus(); i++)
		if (l == &cpu_rq(i)->lock)
			ksnprintf(name, sizeof(name), "rq%d's lock", i);
	holder = spin_holder(l, &pc);
	/*
	 * The CPUs spinning for it, with their tickets (the lock's owner
	 * half is the ticket served now): a served ticket no CPU spins with
	 * was taken by a context that is not spinning any more.
	 */
	len = ksnprintf(out, n, ", spinning for %s held by cpu%d (taken at 0x%x), serving ticket %u of %u; spinning:",
			name, holder, (unsigned)pc, (unsigned)l->owner, (unsigned)(uint16_t)(l->next - 1));
	for (int i = 0; i < sched_nr_cpus() && len < n; i++)
		if (spin_waiting(i) == l)
			len += ksnprintf(out + len, n - len, " cpu%d=%u", i, spin_waiting_ticket_of(i));
}

/*
 * The scan below is O(CPUs), and every busy CPU's tick asks for it every
 * WATCHDOG_CHECK_TICKS: N busy CPUs made N scans of N CPUs where one does.
 * So one scan per WATCHDOG_SCAN_UNITS (units of 2^20 ns: 64, ~67 ms, as one
 * CPU's WATCHDOG_CHECK_TICKS at 1 000 Hz) machine-wide, taken by the first
 * asking CPU once it is due (a compare-and-swap of the next due stamp).
 * The stamp is 32-bit (a 32-bit CPU reads it whole), compared modulo 2^32;
 * one further ahead than a period (the machine slept through a wrap, ~50
 * days; a CPU whose clock lags another's) counts as due.
 */
#define WATCHDOG_UNIT_SHIFT 20
#define WATCHDOG_SCAN_UNITS 64u
static uint32_t watchdog_next;

static bool watchdog_take_scan(uint64_t now)
{
	uint32_t t = (uint32_t)(now >> WATCHDOG_UNIT_SHIFT), due = READ_ONCE(watchdog_next);

	if (due - t - 1 < WATCHDOG_SCAN_UNITS)
		return false;	/* due 1..WATCHDOG_SCAN_UNITS units from now */
	return __atomic_compare_exchange_n(&watchdog_next, &due, t + WATCHDOG_SCAN_UNITS, false, __ATOMIC_RELAXED,
					   __ATOMIC_RELAXED);
}

void watchdog_check(const struct rq *self, uint64_t now)
{
	if (!watchdog_take_scan(now))
		return;
	for (int cpu = 0; cpu < sched_nr_cpus(); cpu++) {
		struct rq *rq = cpu_rq(cpu);
		uint64_t last = READ_ONCE(rq->last_tick_ns);
		const struct task *curr = READ_ONCE(rq->curr);
		struct timers_diag td;
		char in_cb[128] = "", kicked[96] = "", spin[200] = "";

		if (rq == self || !sched_cpu_online_now(cpu))
			continue;
		timers_diag(cpu, &td);
		watchdog_kick_late_timer(cpu, &td, now);
		if (READ_ONCE(rq->tick_stopped) || last == 0 || now < last || now - last < WATCHDOG_NS)
			continue;
		/*
		 * Working through a backlog of expired timers is slow progress,
		 * not a stall: its tick, due after them, waits its turn, while
		 * each callback's wake-up may wait long for rq locks.
		 * timers_run()'s budget drains it over many interrupts, so the
		 * limit runs from the last one to start (not a clock read per
		 * callback, which every timer interrupt would pay).
		 */
		if (td.last_run_ns > last && (now < td.last_run_ns || now - td.last_run_ns < WATCHDOG_NS))
			continue;
		if (td.running)
			ksnprintf(in_cb, sizeof(in_cb), ", still in its timer callback at 0x%x after %u callbacks",
				  (unsigned)td.current_fn, td.callbacks_run);
		if (READ_ONCE(rq->timer_kicked_for) == td.programmed && READ_ONCE(rq->timer_kick))
			ksnprintf(kicked, sizeof(kicked), ", did not take the kick IPI sent at %llu ms",
				  (unsigned long long)(READ_ONCE(rq->timer_kick_ns) / NSEC_PER_MSEC));
		describe_spin(cpu, spin, sizeof(spin));
		panic("watchdog: cpu%d made no scheduling progress for %llu ms (running %s, tick stalled since %llu ms; "
		      "%u timers, next at %lld ms, hardware set for %lld ms, timer interrupt last handled at %llu ms%s%s%s)",
		      cpu, (unsigned long long)((now - last) / NSEC_PER_MSEC), curr ? curr->name : "?",
		      (unsigned long long)(last / NSEC_PER_MSEC), td.nr, timer_ms_or_never(td.next),
		      timer_ms_or_never(td.programmed), (unsigned long long)(td.last_run_ns / NSEC_PER_MSEC), in_cb,
		      kicked, spin);
	}
}

void watchdog_take_kick(struct rq *rq, bool tick_armed)
{
	uint64_t now = arch_now_ns(), late;
	struct timers_diag td;
	bool tick_stopped = rq->tick_stopped;
	struct arch_timer_hw hw;
	char holds[96] = "";

	WRITE_ONCE(rq->timer_kick, false);
	/* As the interrupt left them: what the heap recorded, and what the hardware holds. */
	timers_diag(rq->cpu, &td);
	if (arch_timer_read_hw(&hw))
		ksnprintf(holds, sizeof(holds), "; it holds %lld ms, %s%s%s", timer_ms_or_never(hw.deadline_ns),
			  hw.enabled ? "enabled" : "disabled", hw.masked ? ", masked" : "",
			  hw.fired ? ", fired" : ", not fired");
	late = timers_run_if_late(now);
	/* First one per CPU, then every 64th: a limping timer should not flood the console. */
	if (late && rq->timer_kicks++ % 64 == 0)
		kprintf("watchdog: cpu%d's timer interrupt is %llu ms late while it takes IPIs: "
			"the watchdog's IPI ran its timers (kick %llu; hardware set for %lld ms%s, earliest of %u "
			"timers %lld ms, tick %s)\n",
			rq->cpu, (unsigned long long)(late / NSEC_PER_MSEC), (unsigned long long)rq->timer_kicks,
			timer_ms_or_never(td.programmed), holds, td.nr, timer_ms_or_never(td.next),
			tick_stopped ? "stopped" : tick_armed ? "armed" : "NOT ARMED although running");
}
