/*
 * Scheduler trace: a per-CPU ring buffer of events, dumped on the console
 * in ftrace's text format (trace_pipe style lines) by the `trace` command,
 * and turned into a Chrome/Perfetto JSON trace by tools/trace2json.
 *
 * Events (ftrace names and fields):
 *   sched_switch    prev_comm prev_pid prev_prio prev_state ==> next_comm next_pid next_prio
 *   sched_wakeup    comm pid prio target_cpu
 *   sched_wakeup_new  comm pid prio target_cpu   (a new task placed)
 *   sched_migrate_task  comm pid prio orig_cpu dest_cpu
 *   cpu_idle        state cpu_id      (state 4294967295 = leaving idle)
 *   cluster_power   cluster state     (ours: 1 = on, 0 = off)
 *
 * Recording is lock-free per CPU (each CPU writes only its own buffer, with
 * IRQs off); when the buffer is full the oldest events are overwritten.
 * Costs one load and a branch while tracing is off (trace_on).
 */
#ifndef KERNEL_TRACE_H
#define KERNEL_TRACE_H

#include <stdbool.h>
#include <stdint.h>

struct task;

extern volatile bool trace_on;

void trace_record_sched_switch(int cpu, const struct task *prev, int prev_state, const struct task *next);
void trace_record_sched_wakeup(int cpu, const struct task *p, int target_cpu);
void trace_record_sched_wakeup_new(int cpu, const struct task *p, int target_cpu);
void trace_record_sched_migrate(int cpu, const struct task *p, int orig_cpu, int dest_cpu);
void trace_record_cpu_idle(int cpu, int state);
void trace_record_cluster_power(int cpu, int cluster, bool on);

/* prev_state: the task's enum task_state when it switched out. */
static inline void trace_sched_switch(int cpu, const struct task *prev, int prev_state, const struct task *next)
{
	if (trace_on)
		trace_record_sched_switch(cpu, prev, prev_state, next);
}
static inline void trace_sched_wakeup(int cpu, const struct task *p, int target_cpu)
{
	if (trace_on)
		trace_record_sched_wakeup(cpu, p, target_cpu);
}
static inline void trace_sched_wakeup_new(int cpu, const struct task *p, int target_cpu)
{
	if (trace_on)
		trace_record_sched_wakeup_new(cpu, p, target_cpu);
}
static inline void trace_sched_migrate(int cpu, const struct task *p, int orig_cpu, int dest_cpu)
{
	if (trace_on)
		trace_record_sched_migrate(cpu, p, orig_cpu, dest_cpu);
}
/* @state: idle state index entered, or -1 when leaving idle. */
static inline void trace_cpu_idle(int cpu, int state)
{
	if (trace_on)
		trace_record_cpu_idle(cpu, state);
}
static inline void trace_cluster_power(int cpu, int cluster, bool on)
{
	if (trace_on)
		trace_record_cluster_power(cpu, cluster, on);
}

/* Console: trace start | stop | clear | dump | stats (kernel/sched/trace.c). */
#define TRACE_EVENTS_PER_CPU 2048	/* power of two */

/*
 * Reading the buffers (the console's `trace`): stop the writers first
 * (trace_quiesce() returns whether tracing was on), then dump all CPUs
 * merged in time order as ftrace text, or clear them.
 */
bool trace_quiesce(void);
void trace_dump(void);
void trace_clear(void);
/* Events written to @cpu's buffer in total, and how many were overwritten. */
void trace_stats(int cpu, uint32_t *written, uint32_t *overwritten);

/* kernel/console/trace_commands.c */
void trace_commands_register(void);

#endif
