/* Scheduler trace ring buffers; see include/kernel/trace/trace.h. */
#include "kernel/trace/trace.h"

#include <string.h>

#include "arch/barrier.h"
#include "arch/cpu.h"
#include "kernel/sched/energy.h"
#include "kernel/lib/format.h"
#include "kernel/pack/pack.h"
#include "kernel/sched/idle.h"
#include "kernel/sched/pelt.h"
#include "kernel/lib/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/time/timer.h"

#define COMM_LEN 16

enum trace_type {
	T_SWITCH, T_WAKEUP, T_WAKEUP_NEW, T_MIGRATE, T_IDLE, T_FREQ, T_CLUSTER, T_WAKING, T_PELT_SE, T_PELT_CFS,
	T_PACK, T_COUNTER,
};

struct trace_event {
	uint64_t ts;
	uint8_t type;
	uint16_t cpu;
	int16_t a_prio, b_prio;
	int32_t a_pid, b_pid;
	int32_t x, y;			/* state / target / orig,dest / cluster,on / cpu / prev,target */
	int32_t c_pid;			/* the task running when it was recorded */
	uint32_t v[3];			/* PELT: load, rbl_load, util; pack: reason */
	uint64_t t2;			/* PELT: update time; counter: value (int64) */
	char a_comm[COMM_LEN], b_comm[COMM_LEN], c_comm[COMM_LEN];	/* counter: its name in b_comm */
};

struct trace_buf {
	uint32_t head;			/* next slot; total written = head (wraps) */
	uint32_t lost;			/* overwritten before a dump */
	struct trace_event ev[TRACE_EVENTS_PER_CPU];
};

volatile bool trace_on;
static struct trace_buf bufs[CONFIG_NR_CPUS];

void trace_set(bool on)
{
	trace_on = on;
	static_branch_sync(&trace_on);
}

static struct trace_event *slot(int cpu)
{
	struct trace_buf *b = &bufs[cpu];
	struct trace_event *e = &b->ev[b->head % TRACE_EVENTS_PER_CPU];

	if (b->head >= TRACE_EVENTS_PER_CPU)
		b->lost++;
	b->head++;
	return e;
}

static void copy_comm(char *dst, const struct task *t)
{
	size_t n = strlen(t->name);

	if (n >= COMM_LEN)
		n = COMM_LEN - 1;
	memcpy(dst, t->name, n);
	dst[n] = '\0';
}

/* The ftrace pid of a task: idle tasks are pid 0 ("swapper/N"). */
static int32_t pid_of(const struct task *t)
{
	return t->is_idle ? 0 : (int32_t)t->tid;
}

static int16_t prio_of(const struct task *t)
{
	return (int16_t)task_trace_prio(t);
}

static void record_current(struct trace_event *e, int cpu)
{
	const struct task *cur = cpu_rq(cpu)->curr;

	e->c_pid = pid_of(cur);
	if (cur->is_idle)
		ksnprintf(e->c_comm, COMM_LEN, "<idle>");
	else
		copy_comm(e->c_comm, cur);
}

/* Record on the calling CPU's buffer (IRQs off: one writer per buffer). */
#define RECORD(type_, ...)                                                    \
	do {                                                                  \
		unsigned long flags_ = arch_irq_save();                       \
		int self_ = arch_cpu_id();                                    \
		struct trace_event *e = slot(self_);                          \
		e->ts = arch_now_ns();                                        \
		e->type = (type_);                                            \
		e->cpu = (uint16_t)self_;                                     \
		record_current(e, self_);                                     \
		__VA_ARGS__;                                                  \
		arch_irq_restore(flags_);                                     \
	} while (0)

void trace_record_sched_switch(const struct task *prev, const struct task *next)
{
	RECORD(T_SWITCH, copy_comm(e->a_comm, prev); e->a_pid = pid_of(prev); e->a_prio = prio_of(prev);
	       e->x = prev->state; copy_comm(e->b_comm, next); e->b_pid = pid_of(next);
	       e->b_prio = prio_of(next));
}

void trace_record_sched_wakeup(const struct task *p, int target_cpu)
{
	RECORD(T_WAKEUP, copy_comm(e->a_comm, p); e->a_pid = pid_of(p); e->a_prio = prio_of(p);
	       e->x = target_cpu);
}

void trace_record_sched_wakeup_new(const struct task *p, int target_cpu)
{
	RECORD(T_WAKEUP_NEW, copy_comm(e->a_comm, p); e->a_pid = pid_of(p); e->a_prio = prio_of(p);
	       e->x = target_cpu);
}

void trace_record_sched_migrate(const struct task *p, int orig_cpu, int dest_cpu)
{
	RECORD(T_MIGRATE, copy_comm(e->a_comm, p); e->a_pid = pid_of(p); e->a_prio = prio_of(p);
	       e->x = orig_cpu; e->y = dest_cpu);
}

void trace_record_cpu_idle(int cpu, int state)
{
	RECORD(T_IDLE, e->x = state; e->y = cpu);
}

void trace_record_cpu_frequency(int cpu, uint32_t khz)
{
	RECORD(T_FREQ, e->x = (int32_t)khz; e->y = cpu);
}

void trace_record_cluster_power(int cluster, bool on)
{
	RECORD(T_CLUSTER, e->x = cluster; e->y = on ? 1 : 0);
}

void trace_record_sched_waking(const struct task *p, int target_cpu)
{
	RECORD(T_WAKING, copy_comm(e->a_comm, p); e->a_pid = pid_of(p); e->a_prio = prio_of(p);
	       e->x = target_cpu);
}

static void pelt_values(struct trace_event *e, const struct sched_avg *sa, unsigned long weight)
{
	struct sched_avg snap;

	pelt_snapshot(sa, &snap);
	e->v[1] = pelt_runnable_ratio(&snap);
	e->v[2] = pelt_usage_ratio(&snap);
	e->v[0] = weight ? (uint32_t)pelt_load_contrib(&snap, weight) : e->v[1];
	e->t2 = snap.last_update_ns;
}

void trace_record_pelt_se(const struct task *p)
{
	RECORD(T_PELT_SE, copy_comm(e->a_comm, p); e->a_pid = pid_of(p); e->x = p->cpu;
	       pelt_values(e, &p->se.avg, p->se.weight));
}

void trace_record_pelt_cfs(int cpu, const struct sched_avg *sa)
{
	RECORD(T_PELT_CFS, e->x = cpu; pelt_values(e, sa, 0));
}

/* The policy's place in the table, so the dump names the outcome as that policy does. */
static uint32_t policy_index(const struct pack_policy *policy)
{
	const struct pack_policy *q;

	for (int i = 0; (q = pack_policy_at(i)) != NULL; i++)
		if (q == policy)
			return (uint32_t)i;
	return UINT32_MAX;
}

void trace_record_sched_pack(const struct task *p, int prev_cpu, const struct pack_policy *policy, int reason,
			     int target_cpu)
{
	RECORD(T_PACK, copy_comm(e->a_comm, p); e->a_pid = pid_of(p); e->a_prio = prio_of(p); e->x = prev_cpu;
	       e->y = target_cpu; e->v[0] = (uint32_t)reason; e->v[1] = policy_index(policy));
}

void trace_record_counter(const char *name, int64_t value)
{
	RECORD(T_COUNTER, ksnprintf(e->b_comm, COMM_LEN, "%s", name); e->t2 = (uint64_t)value);
}

/* ------------------------------------------------------------ energy counters */

/*
 * The sampler: a timer re-arming itself every TRACE_SAMPLE_MS on the CPU it
 * first ran on, while `sampling`; it is never cancelled (a callback in
 * flight on another CPU could re-arm it there), it just stops re-arming.
 * sample_lock guards sampling, armed and the base snapshot.
 */
static struct timer sample_timer;
static spinlock_t sample_lock = SPINLOCK_INIT;
static bool sampling, sample_armed;
static struct energy_snapshot energy_base, energy_now, energy_start;
static struct energy_report energy_rep;

static void sample_fn(struct timer *t)
{
	unsigned long flags = spin_lock_irqsave(&sample_lock);

	if (!sampling) {
		sample_armed = false;
		spin_unlock_irqrestore(&sample_lock, flags);
		return;
	}
	if (trace_on) {
		/* A timer callback, IRQs masked: the model's figures only (no meter transaction here). */
		energy_take_snapshot_model(&energy_now);
		energy_compute(energy_model(), &energy_base, &energy_now, rails_base(), &energy_rep);
		trace_record_counter("energy", (int64_t)energy_rep.total);
		for (int r = 0; r < idle_nr_rails(); r++) {
			char name[COMM_LEN];

			ksnprintf(name, sizeof(name), "energy_c%d", idle_rail(r)->cluster);
			trace_record_counter(name, (int64_t)energy_rep.cluster[r]);
		}
	}
	timer_arm(t, arch_now_ns() + (uint64_t)TRACE_SAMPLE_MS * NSEC_PER_MSEC);
	spin_unlock_irqrestore(&sample_lock, flags);
}

void trace_start_counters(void)
{
	unsigned long flags;

	energy_take_snapshot(&energy_start);
	flags = spin_lock_irqsave(&sample_lock);
	energy_base = energy_start;
	sampling = true;
	if (!sample_armed) {
		sample_armed = true;
		timer_setup(&sample_timer, sample_fn, NULL);
		timer_arm(&sample_timer, arch_now_ns() + (uint64_t)TRACE_SAMPLE_MS * NSEC_PER_MSEC);
	}
	spin_unlock_irqrestore(&sample_lock, flags);
}

void trace_stop_counters(void)
{
	unsigned long flags = spin_lock_irqsave(&sample_lock);

	sampling = false;
	spin_unlock_irqrestore(&sample_lock, flags);
}

/* ftrace's one-letter task states. */
static char state_char(int state)
{
	switch (state) {
	case TASK_RUNNABLE: return 'R';
	case TASK_SLEEPING: return 'S';
	case TASK_EXITED: return 'X';
	case TASK_WAKING: return 'W';
	default: return '?';
	}
}

static void comm_of_switch_side(char *out, size_t n, const char *comm, int32_t pid, int cpu)
{
	if (pid == 0)
		ksnprintf(out, n, "swapper/%d", cpu);
	else
		ksnprintf(out, n, "%s", comm);
}

static const char *reason_name(uint32_t policy, uint32_t r)
{
	const struct pack_policy *p = pack_policy_at((int)policy);

	return p && r < (uint32_t)p->nr_reasons ? p->reasons[r] : "?";
}

/* One event as ftrace text lines (trace_pipe's format with irq-info off); some print a counter too. Returns the lines. */
static int print_event(const struct trace_event *e)
{
	int lines = 1;

	char head[48], line[256], who[24], a[24], b[24];
	unsigned long long us = (unsigned long long)(e->ts / 1000);

	ksnprintf(who, sizeof(who), "%s", e->c_comm);
	ksnprintf(head, sizeof(head), "%16s-%-5d [%03d] %5llu.%06llu: ", who, (int)e->c_pid, e->cpu, us / 1000000,
		  us % 1000000);
	switch (e->type) {
	case T_SWITCH:
		comm_of_switch_side(a, sizeof(a), e->a_comm, e->a_pid, e->cpu);
		comm_of_switch_side(b, sizeof(b), e->b_comm, e->b_pid, e->cpu);
		ksnprintf(line, sizeof(line),
			  "sched_switch: prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%c ==> "
			  "next_comm=%s next_pid=%d next_prio=%d",
			  a, (int)e->a_pid, e->a_prio, e->a_pid == 0 ? 'R' : state_char((int)e->x), b, (int)e->b_pid,
			  e->b_prio);
		break;
	case T_WAKEUP:
	case T_WAKEUP_NEW:
	case T_WAKING:
		ksnprintf(line, sizeof(line), "%s: comm=%s pid=%d prio=%d target_cpu=%03d",
			  e->type == T_WAKEUP ? "sched_wakeup" : e->type == T_WAKING ? "sched_waking" : "sched_wakeup_new",
			  e->a_comm, (int)e->a_pid, e->a_prio, (int)e->x);
		break;
	case T_MIGRATE:
		ksnprintf(line, sizeof(line), "sched_migrate_task: comm=%s pid=%d prio=%d orig_cpu=%d dest_cpu=%d",
			  e->a_comm, (int)e->a_pid, e->a_prio, (int)e->x, (int)e->y);
		break;
	case T_IDLE:
		ksnprintf(line, sizeof(line), "cpu_idle: state=%u cpu_id=%d",
			  e->x < 0 ? 4294967295u : (unsigned)e->x, (int)e->y);
		break;
	case T_FREQ:
		ksnprintf(line, sizeof(line), "cpu_frequency: state=%u cpu_id=%d", (unsigned)e->x, (int)e->y);
		break;
	case T_PELT_SE:
		ksnprintf(line, sizeof(line),
			  "sched_pelt_se: cpu=%d path=/ comm=%s pid=%d load=%u rbl_load=%u util=%u update_time=%llu",
			  (int)e->x, e->a_comm, (int)e->a_pid, (unsigned)e->v[0], (unsigned)e->v[1], (unsigned)e->v[2],
			  (unsigned long long)e->t2);
		break;
	case T_PELT_CFS:
		ksnprintf(line, sizeof(line), "sched_pelt_cfs: cpu=%d path=/ load=%u rbl_load=%u util=%u update_time=%llu",
			  (int)e->x, (unsigned)e->v[0], (unsigned)e->v[1], (unsigned)e->v[2], (unsigned long long)e->t2);
		kprintf("%s%s\n", head, line);
		lines++;
		ksnprintf(line, sizeof(line), "tracing_mark_write: C|0|cpu%d_util|%u", (int)e->x, (unsigned)e->v[2]);
		break;
	case T_PACK:
		ksnprintf(line, sizeof(line), "sched_pack: comm=%s pid=%d prio=%d prev_cpu=%d target_cpu=%d reason=%s",
			  e->a_comm, (int)e->a_pid, e->a_prio, (int)e->x, (int)e->y, reason_name(e->v[1], e->v[0]));
		break;
	case T_COUNTER:
		ksnprintf(line, sizeof(line), "tracing_mark_write: C|0|%s|%lld", e->b_comm, (long long)e->t2);
		break;
	default:
		ksnprintf(line, sizeof(line), "cluster_power: cluster=%d state=%d", (int)e->x, (int)e->y);
		kprintf("%s%s\n", head, line);
		lines++;
		ksnprintf(line, sizeof(line), "tracing_mark_write: C|0|cluster%d_power|%d", (int)e->x, (int)e->y);
		break;
	}
	kprintf("%s%s\n", head, line);
	return lines;
}

void trace_dump(void)
{
	uint32_t pos[CONFIG_NR_CPUS], end[CONFIG_NR_CPUS];
	int nr = sched_nr_cpus();
	unsigned long total = 0;

	unsigned long written = 0, lines = 0;

	for (int c = 0; c < nr; c++) {
		struct trace_buf *b = &bufs[c];

		end[c] = b->head;
		pos[c] = b->head > TRACE_EVENTS_PER_CPU ? b->head - TRACE_EVENTS_PER_CPU : 0;
		total += end[c] - pos[c];
		written += b->head;
	}
	kprintf("# tracer: nop\n#\n# entries-in-buffer/entries-written: %lu/%lu   #P:%d\n#\n", total, written, nr);
	for (int c = 0; c < nr; c++)
		if (bufs[c].lost)
			kprintf("# cpu%d: %u oldest events overwritten\n", c, (unsigned)bufs[c].lost);
	kprintf("#           TASK-PID     CPU#     TIMESTAMP  FUNCTION\n");
	for (unsigned long i = 0; i < total; i++) {
		int best = -1;

		for (int c = 0; c < nr; c++)
			if (pos[c] < end[c] &&
			    (best < 0 || bufs[c].ev[pos[c] % TRACE_EVENTS_PER_CPU].ts <
						 bufs[best].ev[pos[best] % TRACE_EVENTS_PER_CPU].ts))
				best = c;
		KASSERT(best >= 0);
		lines += (unsigned long)print_event(&bufs[best].ev[pos[best]++ % TRACE_EVENTS_PER_CPU]);
	}
	kprintf("# end of trace: %lu events\n", lines);
}

bool trace_quiesce(void)
{
	bool was = trace_on;

	trace_set(false);
	smp_mb();
	task_sleep_ns(1000000);
	return was;
}

void trace_clear(void)
{
	for (int c = 0; c < CONFIG_NR_CPUS; c++) {
		bufs[c].head = 0;
		bufs[c].lost = 0;
	}
}

void trace_stats(int cpu, uint32_t *written, uint32_t *overwritten)
{
	*written = bufs[cpu].head;
	*overwritten = bufs[cpu].lost;
}
