/*
 * The seeds' small-task packing at wake-up (RFC 3/6-5/6), shared by the
 * policies that differ only in their rails (off, rails, all), and the PELT
 * tests pack=energy reuses. Policy-internal: kernel/pack/ only.
 */
#ifndef KERNEL_PACK_BUDDY_H
#define KERNEL_PACK_BUDDY_H

#include <stdbool.h>

#include "kernel/sched/sched.h"

/* Outcomes of buddy_select(), in the order `pack` prints them. */
enum buddy_reason {
	BUDDY_PACKED,		/* sent to the buddy */
	BUDDY_NO_BUDDY,		/* this CPU has none (pack off, one rail) */
	BUDDY_NOT_LIGHT,	/* the task runs >= 25% of the time, or would not fit a smaller buddy */
	BUDDY_NOT_ALLOWED,	/* affinity excludes the buddy */
	BUDDY_BUSY,		/* usage << nr_running > period */
	BUDDY_WAITING,		/* on its buddy, but waits > 37.5% of its runnable time */
	BUDDY_NR_REASONS,
};
extern const char *const buddy_reasons[BUDDY_NR_REASONS];

/*
 * Should waking @p, last on @cpu, go to @cpu's buddy? Sets *target to the
 * buddy only when the answer is BUDDY_PACKED. O(1): one buddy per CPU and
 * one seqcount read of its average.
 */
int buddy_select(const struct task *p, int cpu, int *target);

/* A task that waits more than 3/8 of its runnable time is not helped by packing. */
bool pack_waits_too_much(const struct sched_avg *a);
/* @p's average as of now: it stopped accruing when @p went to sleep. */
void pack_waking_avg(const struct task *p, struct sched_avg *out);

#endif
