/*
 * cpupri: which CPUs run at which RT priority (Linux's kernel/sched/cpupri.c,
 * the idea; our own code), so the RT class finds the CPU running the lowest
 * priority without scanning every run queue.
 *
 * Each CPU is at one level: 0 when no RT task is queued there, else the
 * highest RT priority queued there (curr included). Per level a CPU mask,
 * updated with atomics by the CPU's rq lock holder (a level is empty when
 * its mask is: two atomics per move); readers take no lock, so an answer
 * is a hint the RT class re-checks under the rq locks before it moves a
 * task. A CPU moving between levels is set in the new level before it
 * leaves the old, so it is never in neither.
 */
#ifndef KERNEL_SCHED_CPUPRI_H
#define KERNEL_SCHED_CPUPRI_H

#include <stdbool.h>

#include "kernel/lib/cpumask.h"

#define CPUPRI_NR_LEVELS 100	/* 0 (no RT), 1..99 */

void cpupri_init(void);
/* @cpu's level is now @level (its rq lock held). */
void cpupri_set(int cpu, int level);
int cpupri_get(int cpu);
/*
 * The CPUs of the lowest level below @below that @allowed holds, into
 * @out, and that level; -1 if none. O(levels) word tests, no scan of run
 * queues.
 */
int cpupri_find(const cpumask_t *allowed, int below, cpumask_t *out);

#endif
