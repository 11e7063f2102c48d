/*
 * The real-time class (kernel/sched/rt.c): SCHED_FIFO and SCHED_RR with
 * Linux's semantics (sched(7)).
 *
 * - Priorities 1..99, higher first. Each CPU keeps a list per priority and
 *   a bitmap of the non-empty ones: the pick is the head of the highest
 *   list, O(1). curr stays at the head of its list while it runs.
 * - FIFO runs until it blocks, yields or a higher priority comes; RR also
 *   goes to the tail of its list when its slice (sched_rr_timeslice_ns,
 *   100 ms) is used up and another task of its priority waits.
 * - SMP: at every moment the N highest-priority runnable RT tasks that may
 *   run somewhere run. A CPU that gets a second RT task pushes the waiting
 *   one to the CPU running the lowest priority it may use (cpupri:
 *   include/kernel/sched/cpupri.h); a CPU whose priority drops pulls from
 *   CPUs holding waiting RT tasks (the rt_overloaded mask).
 * - Throttling: RT tasks of a CPU run at most sched_rt_runtime_ns in each
 *   sched_rt_period_ns (950 ms of 1 s); then the class yields to the fair
 *   class until the period ends. A runtime of -1 disables it.
 * - The RT time of a CPU has its own PELT average (rq->avg_rt), which the
 *   balancer subtracts from the capacity fair tasks see (Linux's
 *   scale_rt_capacity()).
 */
#ifndef KERNEL_SCHED_RT_H
#define KERNEL_SCHED_RT_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/lib/cpumask.h"
#include "kernel/time/time.h"

struct task;

#define RT_NR_PRIO 100		/* list index = RT priority; 0 unused */
#define RT_BITMAP_WORDS ((RT_NR_PRIO + 31) / 32)

/* rt_rq.work: a push of the waiting tasks, a pull into this CPU (after the unlock). */
#define RT_WORK_PUSH 1u
#define RT_WORK_PULL 2u

struct rt_list {
	struct rt_list *next, *prev;	/* circular; each queue's head is a sentinel */
};

struct sched_rt_entity {
	struct rt_list node;		/* first: the entity is its node */
	uint64_t time_slice;		/* RR: ns left of its slice */
	uint64_t exec_start;		/* when it was last charged */
	bool on_list;
};

struct rt_rq {
	struct rt_list queue[RT_NR_PRIO];
	uint32_t bitmap[RT_BITMAP_WORDS];	/* bit n: queue[n] non-empty */
	unsigned int nr_running;	/* curr included */
	unsigned int nr_migratory;	/* of them, those allowed on more than one CPU */
	uint16_t nr_mig_prio[RT_NR_PRIO];	/* migratory tasks queued per priority */
	uint32_t mig_bitmap[RT_BITMAP_WORDS];	/* bit n: nr_mig_prio[n] != 0 */
	uint8_t work;			/* RT_WORK_*: what the next rt balance() does (atomic) */
	int highest;			/* highest queued priority, 0 if none */
	/*
	 * Highest priority of a migratory task queued here but not running
	 * (0: none): what a pull could take (Linux's highest_prio.next, the
	 * top of its pushable list); throttled, every queued task counts as
	 * not running. Written under the lock whenever the queue, curr or
	 * throttled changes; others read it without the lock, as a hint to
	 * skip this queue.
	 */
	int waiting;
	uint64_t level_since_ns;	/* when highest last changed */
	uint64_t push_start_ns, push_done_ns;	/* the last push pass over this queue (the invariant check) */
	bool overloaded;		/* in rt_overloaded: a second RT task here, one of them free to move */
	bool throttled;			/* used its runtime this period */
	uint64_t rt_time;		/* ns run by RT tasks in this period */
	uint64_t period_start;		/* start of the current throttling period */
	uint64_t nr_throttled;		/* periods that throttled */
	uint64_t nr_pushed, nr_pulled;
};

/* Tunables (console `sysctl`): Linux's defaults and names. */
extern uint64_t sched_rr_timeslice_ns;	/* kernel.sched_rr_timeslice_ms: 100 ms */
extern int64_t sched_rt_runtime_ns;	/* kernel.sched_rt_runtime_us: 950 ms; -1: no limit */
extern uint64_t sched_rt_period_ns;	/* kernel.sched_rt_period_us: 1 s */

/* CPUs with a waiting (queued, not running) RT task: where a pull looks. */
extern cpumask_t rt_overloaded;

/*
 * Debug kernels: is the RT invariant (point 2 above) broken around
 * @cpu? A queued RT task that has waited more than @grace_ns and
 * RT_INVARIANT_GRACE_TICKS of @cpu's ticks while a CPU it may use runs
 * something of lower priority (checked under both locks).
 * Prints one `INVARIANT BROKEN: rt ...` line and returns true if so.
 */
#define RT_INVARIANT_GRACE_TICKS 4
#define RT_INVARIANT_GRACE_NS (4 * NSEC_PER_MSEC)
bool rt_check_invariant(int cpu, uint64_t now, uint64_t grace_ns);
/* How many times rt_check_invariant() found the invariant broken, since boot. */
uint32_t rt_invariant_breaks(void);

#endif
