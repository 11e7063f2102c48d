/*
 * PELT update cost on the host, ours (kernel/sched/pelt.c: O(1) decay) against
 * the seeds' per-period loop (pelt_update_seed_loop() in kernel/apps/microbench.c,
 * seed 01/16 + the usage sum of 15/16), both from build/host/libkcore.a, in
 * one run, for elapsed times of 1 ms .. 1 s between updates.
 *
 * Run under `valgrind --tool=callgrind --collect-atstart=no` (tools/bench
 * does): each measured region is the updates only (CALLGRIND_TOGGLE_COLLECT
 * around each call) and ends with a dump named
 *   "pelt impl=<o1|seed_loop> elapsed_ms=<ms> calls=<k>"
 * whose instruction count / k is the cost of one update. An "empty" region
 * (the toggles around nothing) gives the measuring overhead to subtract.
 * Without valgrind the client requests are no-ops and the program only
 * prints what it ran, and the sums each implementation reached, one line
 * per region:
 *   region <name> ... runnable_avg_sum=<n> runnable_avg_period=<n> usage_avg_sum=<n>
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <valgrind/callgrind.h>

#include "kernel/apps/microbench.h"
#include "kernel/sched/pelt.h"

#define CALLS 256

static const unsigned elapsed_ms[] = { 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000 };

typedef int (*update_fn)(struct sched_avg *, uint64_t, bool, bool);

static void region(const char *impl, update_fn fn, unsigned ms)
{
	struct sched_avg sa;
	uint64_t t = 0, dt = (uint64_t)ms * 1000000u;
	char name[128];

	/* A live entity's state: some history, mid-period. */
	pelt_init(&sa, 0);
	for (int i = 0; i < 40; i++) {
		t += 700000 + (uint64_t)i * 3000;
		fn(&sa, t, true, i & 1);
	}
	snprintf(name, sizeof(name), "pelt impl=%s elapsed_ms=%u calls=%d", impl, ms, CALLS);
	CALLGRIND_ZERO_STATS;
	for (int i = 0; i < CALLS; i++) {
		t += dt;
		CALLGRIND_TOGGLE_COLLECT;
		fn(&sa, t, true, i & 1);
		CALLGRIND_TOGGLE_COLLECT;
	}
	CALLGRIND_DUMP_STATS_AT(name);
	printf("region %s runnable_avg_sum=%u runnable_avg_period=%u usage_avg_sum=%u\n", name,
	       (unsigned)sa.runnable_avg_sum, (unsigned)sa.runnable_avg_period, (unsigned)sa.usage_avg_sum);
}

static int nothing(struct sched_avg *sa, uint64_t now, bool runnable, bool running)
{
	(void)sa;
	(void)now;
	(void)runnable;
	(void)running;
	return 0;
}

int main(void)
{
	/* The measuring overhead: a call that does nothing, through the same pointer. */
	region("empty", nothing, 1);
	for (unsigned i = 0; i < sizeof(elapsed_ms) / sizeof(elapsed_ms[0]); i++) {
		region("o1", pelt_update, elapsed_ms[i]);
		region("seed_loop", pelt_update_seed_loop, elapsed_ms[i]);
	}
	return 0;
}
