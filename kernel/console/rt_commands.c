/*
 * `rtstat` (docs/interfaces.md): the real-time class's queue of each CPU,
 * as Linux's /proc/sched_debug prints its rt_rq: the RT tasks there
 * (running one included), the highest queued priority, the level a puller
 * sees waiting (rq->rt.waiting), whether the CPU is RT-overloaded and
 * throttled, the RT time of the current throttling period and how many
 * periods have throttled since boot. Each CPU's line is one snapshot under
 * its run queue's lock.
 */
#include "arch/spinlock.h"
#include "kernel/lib/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/console/shell.h"
#include "kernel/time/time.h"

static int cmd_rtstat(int argc, char **argv)
{
	(void)argv;
	if (argc != 1) {
		kprintf("error: rtstat takes no arguments\n");
		return 1;
	}
	for (int cpu = 0; cpu < sched_nr_cpus(); cpu++) {
		struct rq *rq = cpu_rq(cpu);
		unsigned long flags = spin_lock_irqsave(&rq->lock);
		unsigned int nr;
		int highest, waiting;
		bool overloaded, throttled;
		uint64_t rt_time, periods;

		nr = rq->rt.nr_running;
		highest = rq->rt.highest;
		waiting = rq->rt.waiting;
		overloaded = rq->rt.overloaded;
		throttled = rq->rt.throttled;
		rt_time = rq->rt.rt_time;
		periods = rq->rt.nr_throttled;
		spin_unlock_irqrestore(&rq->lock, flags);
		kprintf("rtstat: cpu%d rt_nr_running=%u highest=%d waiting=%d overloaded=%d throttled=%d "
			"rt_time_us=%llu nr_throttled=%llu\n", cpu, nr, highest, waiting, overloaded, throttled,
			(unsigned long long)(rt_time / NSEC_PER_USEC), (unsigned long long)periods);
	}
	return 0;
}

static const struct shell_cmd commands[] = {
	{ "rtstat", "", "real-time class per CPU: queued, levels, throttling", cmd_rtstat },
};

SHELL_COMMANDS(commands);
