/*
 * Scheduler trace: a per-CPU ring buffer of events, dumped on the console
 * in ftrace's text format (trace_pipe style lines) by the `trace` command,
 * and turned into a Chrome/Perfetto JSON trace by tools/trace2json.
 *
 * Lines as Linux prints them with the irq-info option off (no flags
 * column: LISA's text parsers want none, Perfetto's takes either):
 *   "%16s-%-5d [%03d] %5llu.%06llu: <event>: <fields>"
 * Events (Linux's names and field layouts where Linux has the event):
 *   sched_switch    prev_comm prev_pid prev_prio prev_state ==> next_comm next_pid next_prio
 *   sched_waking    comm pid prio target_cpu  (the waker starts a wake-up; target_cpu: the
 *                   task's CPU then, as Linux; Perfetto takes its wake-up edges from this one)
 *   sched_wakeup    comm pid prio target_cpu  (the task is runnable on target_cpu)
 *   sched_wakeup_new  comm pid prio target_cpu   (a new task placed)
 *   sched_migrate_task  comm pid prio orig_cpu dest_cpu
 *   cpu_idle        state cpu_id      (state 4294967295 = leaving idle)
 *   sched_pelt_se   cpu path comm pid load rbl_load util update_time   (LISA's format: a task's
 *                   PELT after an update; util = running ratio, rbl_load = runnable ratio, both
 *                   0..1024; load = weight x runnable, the seeds' load contribution)
 *   sched_pelt_cfs  cpu path load rbl_load util update_time   (the run queue's PELT; load =
 *                   rbl_load: the rq tracks no weight)
 *   cpu_frequency   state cpu_id      (state: the CPU's new frequency in kHz, one event per CPU of
 *                   the domain, recorded by the CPU that changed it, as Linux does)
 *   cluster_power   cluster state     (ours: 1 = on, 0 = off)
 *   sched_pack      comm pid prio prev_cpu target_cpu reason   (ours: the placement decision
 *                   of each wake-up; reason = the outcome's name in the policy in force
 *                   (the names `pack` prints: include/kernel/pack/pack.h), target_cpu -1 when the
 *                   policy left the task to the idle search)
 *   tracing_mark_write  C|0|<name>|<value>   (counters, systrace's form, which Perfetto plots
 *                   as counter tracks: cluster<k>_power 0/1 at each change, cpu<n>_util with
 *                   each sched_pelt_cfs, and every TRACE_SAMPLE_MS the energy used since
 *                   `trace start`: energy and energy_c<k>, in the energy model's units)
 *
 * Recording is lock-free per CPU (each CPU writes only its own buffer, with
 * IRQs off); when the buffer is full the oldest events are overwritten.
 * Costs one NOP while tracing is off (trace_on, a static branch:
 * include/kernel/lib/static_branch.h); write trace_on with trace_set().
 */
#ifndef KERNEL_TRACE_H
#define KERNEL_TRACE_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/lib/static_branch.h"

struct pack_policy;
struct task;
struct sched_avg;

extern volatile bool trace_on;
/* trace_on = @on, and the hooks' static branches follow it before this returns. */
void trace_set(bool on);

/* prev's state is read here, not by the switch: tracing off, the switch does not load it. */
void trace_record_sched_switch(const struct task *prev, const struct task *next);
void trace_record_sched_wakeup(const struct task *p, int target_cpu);
void trace_record_sched_wakeup_new(const struct task *p, int target_cpu);
void trace_record_sched_migrate(const struct task *p, int orig_cpu, int dest_cpu);
void trace_record_cpu_idle(int cpu, int state);
void trace_record_cluster_power(int cluster, bool on);
void trace_record_cpu_frequency(int cpu, uint32_t khz);
void trace_record_sched_waking(const struct task *p, int target_cpu);
void trace_record_pelt_se(const struct task *p);
void trace_record_pelt_cfs(int cpu, const struct sched_avg *sa);
void trace_record_sched_pack(const struct task *p, int prev_cpu, const struct pack_policy *policy, int reason,
			     int target_cpu);
void trace_record_counter(const char *name, int64_t value);

/*
 * The scheduler's events happen on the recording CPU, so their hooks take
 * no CPU (an argument such as arch_cpu_id() is evaluated, tracing off or
 * on); cpu_idle and cpu_frequency name the CPU they describe.
 */
static inline void trace_sched_switch(const struct task *prev, const struct task *next)
{
	if (static_branch_unlikely(&trace_on))
		trace_record_sched_switch(prev, next);
}
static inline void trace_sched_wakeup(const struct task *p, int target_cpu)
{
	if (static_branch_unlikely(&trace_on))
		trace_record_sched_wakeup(p, target_cpu);
}
static inline void trace_sched_wakeup_new(const struct task *p, int target_cpu)
{
	if (static_branch_unlikely(&trace_on))
		trace_record_sched_wakeup_new(p, target_cpu);
}
static inline void trace_sched_migrate(const struct task *p, int orig_cpu, int dest_cpu)
{
	if (static_branch_unlikely(&trace_on))
		trace_record_sched_migrate(p, orig_cpu, dest_cpu);
}
/* @state: idle state index entered, or -1 when leaving idle. */
static inline void trace_cpu_idle(int cpu, int state)
{
	if (static_branch_unlikely(&trace_on))
		trace_record_cpu_idle(cpu, state);
}
static inline void trace_cpu_frequency(int cpu, uint32_t khz)
{
	if (static_branch_unlikely(&trace_on))
		trace_record_cpu_frequency(cpu, khz);
}
static inline void trace_cluster_power(int cluster, bool on)
{
	if (static_branch_unlikely(&trace_on))
		trace_record_cluster_power(cluster, on);
}

static inline void trace_sched_waking(const struct task *p, int target_cpu)
{
	if (static_branch_unlikely(&trace_on))
		trace_record_sched_waking(p, target_cpu);
}
static inline void trace_pelt_se(const struct task *p)
{
	if (static_branch_unlikely(&trace_on))
		trace_record_pelt_se(p);
}
static inline void trace_pelt_cfs(int cpu, const struct sched_avg *sa)
{
	if (static_branch_unlikely(&trace_on))
		trace_record_pelt_cfs(cpu, sa);
}
/* @reason: @policy's outcome index; @target_cpu: where the policy sent the task, or -1. */
static inline void trace_sched_pack(const struct task *p, int prev_cpu, const struct pack_policy *policy,
				    int reason, int target_cpu)
{
	if (static_branch_unlikely(&trace_on))
		trace_record_sched_pack(p, prev_cpu, policy, reason, target_cpu);
}

/* Console: trace start | stop | clear | dump | stats (kernel/console/trace_commands.c). */
#define TRACE_EVENTS_PER_CPU 4096	/* power of two */
#define TRACE_SAMPLE_MS 10		/* energy counters: one sample every so often while tracing */

/*
 * Reading the buffers (the console's `trace`): stop the writers first
 * (trace_quiesce() returns whether tracing was on), then dump all CPUs
 * merged in time order as ftrace text, or clear them.
 */
bool trace_quiesce(void);
/* Tracing starts now: the energy counters count from here, sampled by a timer on this CPU. */
void trace_start_counters(void);
void trace_stop_counters(void);
void trace_dump(void);
void trace_clear(void);
/* Events written to @cpu's buffer in total, and how many were overwritten. */
void trace_stats(int cpu, uint32_t *written, uint32_t *overwritten);


#endif
