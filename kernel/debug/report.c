/* Scheduler state reports; see include/kernel/debug/sched_report.h. */
#include "kernel/debug/sched_report.h"

#include <string.h>

#include "arch/barrier.h"
#include "kernel/lib/format.h"
#include "kernel/lib/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/time/timer.h"

void sched_report_cpu(const char *prefix, int cpu)
{
	const struct rq *rq = cpu_rq(cpu);
	const struct task *curr = READ_ONCE(rq->curr);
	struct timers_diag td;
	char extra[160] = "";

	timers_diag(cpu, &td);
#ifdef CONFIG_SCHED_DEBUG
	/*
	 * Ticks without IRQ exits: the CPU never leaves its interrupts (the
	 * exit is where it reschedules). The rq lock's tickets (served/taken)
	 * and, on ARM, who took it last and where: a CPU stuck on a lock
	 * shows whether the queue moves.
	 */
	ksnprintf(extra, sizeof(extra), " irq_exits=%llu tick_overruns=%llu last_schedule=%llu ms rq_lock=%u/%u",
		  (unsigned long long)READ_ONCE(rq->nr_irq_exits), (unsigned long long)READ_ONCE(rq->tick_overruns),
		  (unsigned long long)(READ_ONCE(rq->last_schedule_ns) / NSEC_PER_MSEC),
		  (unsigned)rq->lock.owner, (unsigned)rq->lock.next);
#ifdef __arm__
	{
		size_t n = strlen(extra);

		ksnprintf(extra + n, sizeof(extra) - n, " (cpu%d at 0x%x)", (int)rq->lock.holder_cpu,
			  (unsigned)rq->lock.holder_pc);
	}
#endif
#endif
	kprintf("%scpu%d: running %s (task %u), %u queued, need_resched=%d tick_stopped=%d wake_list=%s "
		"switches=%llu ticks=%llu last_tick=%llu ms next_timer=%lld ms timers=%u timer_irq=%llu ms%s%s\n",
		prefix, cpu, curr ? curr->name : "?", curr ? (unsigned)curr->tid : 0u,
		(unsigned)READ_ONCE(rq->nr_running), (int)READ_ONCE(rq->need_resched),
		(int)READ_ONCE(rq->tick_stopped), READ_ONCE(rq->wake_list) ? "busy" : "empty",
		(unsigned long long)READ_ONCE(rq->nr_switches), (unsigned long long)READ_ONCE(rq->ticks),
		(unsigned long long)(READ_ONCE(rq->last_tick_ns) / NSEC_PER_MSEC), timer_ms_or_never(td.next), td.nr,
		(unsigned long long)(td.last_run_ns / NSEC_PER_MSEC), td.running ? " (still in its callbacks)" : "",
		extra);
}

#ifdef CONFIG_SCHED_DEBUG
static const char *const event_names[] = {
	[TEV_NEW] = "new, placed on",
	[TEV_WAKEUP] = "woken from",
	[TEV_WAKE_LIST] = "pushed from",
	[TEV_ENQUEUE] = "queued on",
	[TEV_MIGRATE] = "pulled to",
	[TEV_RUN] = "ran on",
	[TEV_OUT] = "switched out on",
};

/* Oldest first, times relative to now: where the task has been. */
static void report_history(const char *prefix, const struct task *p)
{
	uint32_t next = READ_ONCE(p->history_next);
	uint64_t now = arch_now_ns();

	for (uint32_t i = next > TASK_HISTORY ? next - TASK_HISTORY : 0; i < next; i++) {
		const struct task_event *e = &p->history[i % TASK_HISTORY];
		const char *what = e->kind < sizeof(event_names) / sizeof(event_names[0]) ? event_names[e->kind] : "?";
		char arg[40] = "";
		long long ms_ago = (long long)(now - e->ns) / (long long)NSEC_PER_MSEC;

		if (e->kind == TEV_WAKEUP || e->kind == TEV_WAKE_LIST)
			ksnprintf(arg, sizeof(arg), " for cpu%d", e->arg);
		else if (e->kind == TEV_MIGRATE)
			ksnprintf(arg, sizeof(arg), " from cpu%d", e->arg);
		else if (e->kind == TEV_OUT)
			ksnprintf(arg, sizeof(arg), " (%s)", e->arg == TASK_RUNNABLE ? "still runnable" :
							   e->arg == TASK_SLEEPING ? "sleeping" :
							   e->arg == TASK_EXITED ? "exited" : "moving");
		else if (e->kind == TEV_ENQUEUE)
			ksnprintf(arg, sizeof(arg), " (flags 0x%x)", (unsigned)(uint8_t)e->arg);
		kprintf("%s  %lld ms ago: %s cpu%d%s\n", prefix, ms_ago, what, e->cpu, arg);
	}
}
#endif

void sched_report_task(const char *prefix, const struct task *p)
{
	kprintf("%stask %u (%s) %s on cpu%d, nice %d, %llu switches, %llu wake-ups, %llu migrations\n", prefix,
		(unsigned)p->tid, p->name, task_state_name(p), (int)READ_ONCE(p->cpu), p->se.nice,
		(unsigned long long)p->nr_switches, (unsigned long long)p->nr_wakeups,
		(unsigned long long)p->nr_migrations);
#ifdef CONFIG_SCHED_DEBUG
	report_history(prefix, p);
#endif
}
