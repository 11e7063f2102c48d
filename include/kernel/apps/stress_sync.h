/*
 * The sleeping synchronisation objects under the `stress` command
 * (kernel/apps/stress_sync.c): workers that contend on mutexes, pass items
 * through a condition variable, meet at a barrier and hand units over a
 * semaphore, on every CPU, while stress's other workers churn the
 * scheduler. Each object's invariant is checked as it runs and at the end.
 */
#ifndef KERNEL_STRESS_SYNC_H
#define KERNEL_STRESS_SYNC_H

#include <stdint.h>

/* Start the workers (@cpus: the CPUs they may use; @seed: their randomness). */
void stress_sync_start(uint32_t seed, uint32_t cpus);
/* Stop and join them, print one `stress: sync ...` line; the number of broken invariants. */
int stress_sync_stop(void);
/* Broken invariants so far (while the workers run, or after the stop's final checks). */
int stress_sync_violations(void);

#endif
