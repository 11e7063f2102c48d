/* The starvation detector of debug kernels; see include/kernel/debug/sched_report.h. */
#include "kernel/debug/sched_report.h"

#ifdef CONFIG_SCHED_DEBUG

#include <string.h>

#include "arch/barrier.h"
#include "kernel/lib/cmdline.h"
#include "kernel/lib/printk.h"
#include "kernel/sched/sched_internal.h"
#include "kernel/console/shell.h"

static volatile uint32_t limit_ms;
static uint32_t reports;

void starve_set_limit_ms(uint32_t ms)
{
	WRITE_ONCE(limit_ms, ms);
}

uint32_t starve_limit_ms(void)
{
	return READ_ONCE(limit_ms);
}

uint32_t starve_reports(void)
{
	return __atomic_load_n(&reports, __ATOMIC_ACQUIRE);
}

void starve_stop_preempting(int cpu, uint32_t ms)
{
	WRITE_ONCE(cpu_rq(cpu)->no_preempt_until_ns, arch_now_ns() + (uint64_t)ms * NSEC_PER_MSEC);
}

/* Keep in *@hit the task that has waited the most ticks of this CPU, if past both limits. */
static void consider(const struct rq *rq, struct task *p, uint32_t ticks, uint64_t since, uint64_t now,
		     enum starve_where where, uint32_t limit_ticks, struct starve_hit *hit)
{
	/* Signed: a pusher on another CPU may have read a clock a little ahead of ours. */
	int64_t ns = (int64_t)(now - since);

	if (ticks < limit_ticks || ns < (int64_t)READ_ONCE(limit_ms) * (int64_t)NSEC_PER_MSEC)
		return;
	if (hit->p && ticks <= hit->ticks)
		return;
	*hit = (struct starve_hit){ .p = p, .ticks = ticks, .ns = (uint64_t)ns, .where = where,
				    .queued = rq->nr_running };
}

bool starve_check(const struct rq *rq, uint64_t now, struct starve_hit *hit)
{
	uint32_t ms = READ_ONCE(limit_ms);
	uint32_t limit_ticks = (uint32_t)((uint64_t)ms * sched_hz / 1000u);

	if (!ms)
		return false;
	if (limit_ticks == 0)
		limit_ticks = 1;
	hit->p = NULL;
	/*
	 * A queued task may wait long by fairness alone (nice 19 behind 80
	 * nice-0 tasks waits seconds after each slice): it starves only if
	 * the CPU is idle, or runs a task whose vruntime is ahead of its own
	 * by more than the limit, which tick preemption never allows. Under a
	 * real-time task fair tasks wait by design (up to the RT throttling
	 * period), and RT tasks wait on the RT class's invariant
	 * (rt_check_invariant()), not on this.
	 */
	for (struct sched_entity *se = rq->curr->prio > 0 ? NULL : cfs_pick_first(&rq->cfs); se; se = cfs_next(se)) {
		struct task *p = task_of_se(se);
		int64_t behind = rq->curr->is_idle ? INT64_MAX : (int64_t)(rq->curr->se.vruntime - se->vruntime);

		if (behind >= (int64_t)ms * (int64_t)NSEC_PER_MSEC)
			consider(rq, p, (uint32_t)rq->ticks - p->wait_ticks_base, p->wait_start_ns, now, STARVE_QUEUED,
				 limit_ticks, hit);
	}
	/* Only this CPU drains its list (not now: we are in its tick), others only push at the head. */
	for (struct task *p = READ_ONCE(rq->wake_list); p; p = READ_ONCE(p->wake_next))
		consider(rq, p, (uint32_t)rq->ticks - READ_ONCE(p->wait_ticks_base), READ_ONCE(p->wait_start_ns), now,
			 STARVE_WAKE_LIST, limit_ticks, hit);
	/* Ticks with no IRQ exit: even the current task never gets back to run. */
	consider(rq, rq->curr, (uint32_t)rq->ticks - rq->irq_exit_ticks, rq->irq_exit_ns, now, STARVE_IN_IRQ,
		 limit_ticks, hit);
	return hit->p != NULL;
}

void starve_report(int cpu, const struct starve_hit *hit)
{
	if (__atomic_fetch_add(&reports, 1, __ATOMIC_ACQ_REL) != 0)
		return;		/* one report: the first starving task says what is wrong */
	if (hit->where == STARVE_IN_IRQ)
		kprintf("starvation: cpu%d took %u ticks in %llu ms without one IRQ exit: it never leaves its "
			"interrupts, where it would reschedule; task %u (%s), current there, and %u queued tasks "
			"cannot run\n",
			cpu, (unsigned)hit->ticks, (unsigned long long)(hit->ns / NSEC_PER_MSEC), (unsigned)hit->p->tid,
			hit->p->name, hit->queued);
	else
		kprintf("starvation: task %u (%s) has waited %llu ms %s cpu%d, which took %u ticks meanwhile "
			"without running it%s\n",
			(unsigned)hit->p->tid, hit->p->name, (unsigned long long)(hit->ns / NSEC_PER_MSEC),
			hit->where == STARVE_WAKE_LIST ? "on the wake list of" : "queued on", cpu,
			(unsigned)hit->ticks,
			hit->where == STARVE_QUEUED ? ", while the CPU idled or ran a task further ahead in vruntime "
						      "than the limit" : "");
	sched_report_cpu("starvation: ", cpu);
	sched_report_task("starvation: ", hit->p);
}

static int cmd_starve(int argc, char **argv)
{
	unsigned long ms;

	if (argc == 2 && strcmp(argv[1], "off") == 0) {
		starve_set_limit_ms(0);
	} else if (argc == 2 && cmdline_parse_ulong(argv[1], 1, 3600000, &ms)) {
		starve_set_limit_ms((uint32_t)ms);
	} else if (argc != 1) {
		kprintf("error: usage: starve [<ms 1..3600000>|off]\n");
		return 1;
	}
	if (starve_limit_ms())
		kprintf("starve: limit %u ms, %u detections (the first is reported)\n", (unsigned)starve_limit_ms(),
			(unsigned)starve_reports());
	else
		kprintf("starve: off, %u detections (the first is reported)\n", (unsigned)starve_reports());
	return 0;
}

static const struct shell_cmd commands[] = {
	{ "starve", "[<ms>|off]", "debug kernels: report a task waiting that long on a CPU that ticks", cmd_starve },
};

SHELL_COMMANDS(commands);

#endif
