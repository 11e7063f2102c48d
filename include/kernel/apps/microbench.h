/*
 * In-guest micro-benchmarks of the scheduler's hot paths (kernel/apps/microbench.c,
 * run by `make bench` through tools/bench): the `microbench` console command.
 *
 * Also the reference PELT update the O(1) decay is compared against: the
 * seeds' per-period loop (seed 01/16, __update_entity_runnable_avg with
 * decay_load(val, 1) once per period, plus the usage sum of seed 15/16).
 * It is compiled on the host too (build/host/libkcore.a), so the host
 * benchmark (tools/bench-host/pelt_decay.c) and the guest time the same code.
 */
#ifndef KERNEL_MICROBENCH_H
#define KERNEL_MICROBENCH_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/sched/pelt.h"


/*
 * The seeds' update, verbatim apart from names: last_update_ns plays
 * last_runnable_update, the position in the period is derived from
 * runnable_avg_period % 1024 as the seed did, and every elapsed period is
 * one trip round the loop (O(periods)). period_contrib and seq are not used.
 * Returns 1 if a period boundary was crossed, as the seed's "decayed".
 */
int pelt_update_seed_loop(struct sched_avg *sa, uint64_t now_ns, bool runnable, bool running);

#endif
