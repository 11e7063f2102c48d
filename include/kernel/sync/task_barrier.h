/*
 * Task barriers: @parties tasks meet; each one that arrives sleeps until
 * the last one arrives, which wakes them all and starts the next round
 * (a generation count, so a fast task re-entering cannot slip through a
 * round it was not part of). rt-app's "barrier" event: the parties are
 * every instance of every task that names the barrier.
 */
#ifndef KERNEL_TASK_BARRIER_H
#define KERNEL_TASK_BARRIER_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/sync/waitqueue.h"

struct task_barrier {
	struct waitqueue wq;		/* wq.lock guards the counts */
	uint32_t parties, arrived, generation;
};

enum barrier_result {
	BARRIER_WAITED = 0,	/* released by the last arrival */
	BARRIER_LAST,		/* this task was the last: it released the others */
	BARRIER_STOPPED,	/* *stop became true first */
};

void task_barrier_init(struct task_barrier *b, uint32_t parties);
enum barrier_result task_barrier_wait(struct task_barrier *b, const volatile bool *stop);
/* The first half for a given task (host tests): BARRIER_LAST, or queued on @e (BARRIER_WAITED). */
enum barrier_result task_barrier_arrive(struct task_barrier *b, struct wait_entry *e, struct task *t);

#endif
