/*
 * What the scheduler says when something is wrong: one line of a CPU's
 * scheduler state, a task's state and (debug kernels) its recent history,
 * and the starvation detector of debug kernels.
 *
 * Starvation detector: a task that waits for a CPU (queued, or on the CPU's
 * wake list) while that CPU takes `limit` worth of its own ticks without
 * running it is reported once (a queued task only while that CPU idles or
 * runs a task ahead of it in vruntime by more than the limit: a long wait
 * that fairness explains, nice 19 behind a crowd, is not starvation), as
 * Linux's soft-lockup and hung-task
 * watchdogs report: the task, its history and the CPU's state. Counting the
 * CPU's own ticks, not wall time, keeps a vCPU the host did not run from
 * being taken for one that runs and does not schedule. Off by default;
 * `starve <ms>` (or stress, which turns it on for its run) enables it.
 */
#ifndef KERNEL_SCHED_REPORT_H
#define KERNEL_SCHED_REPORT_H

#include <stdint.h>

struct task;

/* "<prefix>cpuN: running ..., N queued, need_resched=..." (read without locks: the CPU may be stuck holding one). */
void sched_report_cpu(const char *prefix, int cpu);
/* "<prefix>task N (name) <state> on cpuN ..." then, in debug kernels, its history. */
void sched_report_task(const char *prefix, const struct task *p);

/* The limit stress runs with (debug kernels). */
#define STARVE_DEFAULT_MS 1000

#ifdef CONFIG_SCHED_DEBUG
/* 0: off. */
void starve_set_limit_ms(uint32_t ms);
uint32_t starve_limit_ms(void);
/* Detections since boot (a starving task is found at every check until it runs; only the first is reported). */
uint32_t starve_reports(void);
/*
 * The fault the detector exists for, on demand (`crash starve`): @cpu's IRQ
 * exits stop preempting for @ms, so a task queued behind one that never
 * blocks waits while the CPU keeps ticking.
 */
void starve_stop_preempting(int cpu, uint32_t ms);
#else
static inline void starve_set_limit_ms(uint32_t ms)
{
	(void)ms;
}
static inline uint32_t starve_limit_ms(void)
{
	return 0;
}
static inline uint32_t starve_reports(void)
{
	return 0;
}
#endif

#endif
