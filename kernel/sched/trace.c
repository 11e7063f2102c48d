/* Scheduler trace ring buffers; see include/kernel/trace.h. */
#include "kernel/trace.h"

#include <string.h>

#include "arch/barrier.h"
#include "arch/cpu.h"
#include "kernel/format.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/timer.h"

#define COMM_LEN 16

enum trace_type { T_SWITCH, T_WAKEUP, T_WAKEUP_NEW, T_MIGRATE, T_IDLE, T_CLUSTER };

struct trace_event {
	uint64_t ts;
	uint8_t type;
	uint16_t cpu;
	int16_t a_prio, b_prio;
	int32_t a_pid, b_pid;
	int32_t x, y;			/* state / target / orig,dest / cluster,on */
	int32_t c_pid;			/* the task running when it was recorded */
	char a_comm[COMM_LEN], b_comm[COMM_LEN], c_comm[COMM_LEN];
};

struct trace_buf {
	uint32_t head;			/* next slot; total written = head (wraps) */
	uint32_t lost;			/* overwritten before a dump */
	struct trace_event ev[TRACE_EVENTS_PER_CPU];
};

volatile bool trace_on;
static struct trace_buf bufs[CONFIG_NR_CPUS];

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
	return (int16_t)(t->is_idle ? 120 : 120 + t->se.nice);
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

void trace_record_sched_switch(int cpu, const struct task *prev, int prev_state, const struct task *next)
{
	(void)cpu;
	RECORD(T_SWITCH, copy_comm(e->a_comm, prev); e->a_pid = pid_of(prev); e->a_prio = prio_of(prev);
	       e->x = prev_state; copy_comm(e->b_comm, next); e->b_pid = pid_of(next);
	       e->b_prio = prio_of(next));
}

void trace_record_sched_wakeup(int cpu, const struct task *p, int target_cpu)
{
	(void)cpu;
	RECORD(T_WAKEUP, copy_comm(e->a_comm, p); e->a_pid = pid_of(p); e->a_prio = prio_of(p);
	       e->x = target_cpu);
}

void trace_record_sched_wakeup_new(int cpu, const struct task *p, int target_cpu)
{
	(void)cpu;
	RECORD(T_WAKEUP_NEW, copy_comm(e->a_comm, p); e->a_pid = pid_of(p); e->a_prio = prio_of(p);
	       e->x = target_cpu);
}

void trace_record_sched_migrate(int cpu, const struct task *p, int orig_cpu, int dest_cpu)
{
	(void)cpu;
	RECORD(T_MIGRATE, copy_comm(e->a_comm, p); e->a_pid = pid_of(p); e->a_prio = prio_of(p);
	       e->x = orig_cpu; e->y = dest_cpu);
}

void trace_record_cpu_idle(int cpu, int state)
{
	RECORD(T_IDLE, e->x = state; e->y = cpu);
}

void trace_record_cluster_power(int cpu, int cluster, bool on)
{
	(void)cpu;
	RECORD(T_CLUSTER, e->x = cluster; e->y = on ? 1 : 0);
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

/* One event as an ftrace text line (trace_pipe format). */
static void print_event(const struct trace_event *e)
{
	char line[256], who[24], a[24], b[24];
	unsigned long long us = (unsigned long long)(e->ts / 1000);
	int n;

	ksnprintf(who, sizeof(who), "%s", e->c_comm);
	n = ksnprintf(line, sizeof(line), "%16s-%-5d [%03d] d..2 %5llu.%06llu: ", who, (int)e->c_pid, e->cpu,
		      us / 1000000, us % 1000000);
	switch (e->type) {
	case T_SWITCH:
		comm_of_switch_side(a, sizeof(a), e->a_comm, e->a_pid, e->cpu);
		comm_of_switch_side(b, sizeof(b), e->b_comm, e->b_pid, e->cpu);
		ksnprintf(line + n, sizeof(line) - (size_t)n,
			  "sched_switch: prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%c ==> "
			  "next_comm=%s next_pid=%d next_prio=%d",
			  a, (int)e->a_pid, e->a_prio, e->a_pid == 0 ? 'R' : state_char((int)e->x), b, (int)e->b_pid,
			  e->b_prio);
		break;
	case T_WAKEUP:
	case T_WAKEUP_NEW:
		ksnprintf(line + n, sizeof(line) - (size_t)n, "%s: comm=%s pid=%d prio=%d target_cpu=%03d",
			  e->type == T_WAKEUP ? "sched_wakeup" : "sched_wakeup_new", e->a_comm, (int)e->a_pid,
			  e->a_prio, (int)e->x);
		break;
	case T_MIGRATE:
		ksnprintf(line + n, sizeof(line) - (size_t)n,
			  "sched_migrate_task: comm=%s pid=%d prio=%d orig_cpu=%d dest_cpu=%d", e->a_comm,
			  (int)e->a_pid, e->a_prio, (int)e->x, (int)e->y);
		break;
	case T_IDLE:
		ksnprintf(line + n, sizeof(line) - (size_t)n, "cpu_idle: state=%u cpu_id=%d",
			  e->x < 0 ? 4294967295u : (unsigned)e->x, (int)e->y);
		break;
	default:
		ksnprintf(line + n, sizeof(line) - (size_t)n, "cluster_power: cluster=%d state=%d", (int)e->x,
			  (int)e->y);
		break;
	}
	kprintf("%s\n", line);
}

void trace_dump(void)
{
	uint32_t pos[CONFIG_NR_CPUS], end[CONFIG_NR_CPUS];
	int nr = sched_nr_cpus();
	unsigned long total = 0;

	unsigned long written = 0;

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
	kprintf("#           TASK-PID     CPU#  ||||   TIMESTAMP  FUNCTION\n");
	for (unsigned long i = 0; i < total; i++) {
		int best = -1;

		for (int c = 0; c < nr; c++)
			if (pos[c] < end[c] &&
			    (best < 0 || bufs[c].ev[pos[c] % TRACE_EVENTS_PER_CPU].ts <
						 bufs[best].ev[pos[best] % TRACE_EVENTS_PER_CPU].ts))
				best = c;
		KASSERT(best >= 0);
		print_event(&bufs[best].ev[pos[best]++ % TRACE_EVENTS_PER_CPU]);
	}
	kprintf("# end of trace: %lu events\n", total);
}

bool trace_quiesce(void)
{
	bool was = trace_on;

	trace_on = false;
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
