/*
 * The fair scheduling class (CFS-style), pure arithmetic on one run queue.
 *
 * Each entity accrues virtual runtime: real runtime scaled by
 * NICE_0_WEIGHT / weight, so an entity of twice the weight accrues half as
 * fast and gets twice the CPU. Runnable entities wait in a red-black tree
 * ordered by vruntime; the running one (curr) is kept out of the tree, as
 * in Linux. min_vruntime only moves forward; it is the base that wakers
 * and migrating entities are placed relative to, and is brought up to date
 * when read (cfs_min_vruntime()), not on every update of curr.
 *
 * Time comes in as arguments (ns), so the host tests drive it with a fake
 * clock. The caller holds the run queue's lock around every call.
 */
#ifndef KERNEL_FAIR_H
#define KERNEL_FAIR_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/sched/pelt.h"
#include "kernel/lib/rbtree.h"

#define NICE_MIN (-20)
#define NICE_MAX 19
#define NICE_0_WEIGHT 1024u

/* Tunables, ns (Linux's unscaled defaults). */
#define SCHED_LATENCY_NS 6000000ull	/* period shared by nr_latency tasks */
#define SCHED_MIN_GRAN_NS 750000ull	/* shortest slice */
#define SCHED_NR_LATENCY 8u
#define SCHED_WAKEUP_GRAN_NS 1000000ull	/* vruntime lead a waker needs to preempt */

/* cfs_enqueue flags */
#define ENQ_WAKEUP 1	/* was sleeping: may get a sleeper credit */
#define ENQ_NEW 2	/* first enqueue: start one slice behind */
#define ENQ_MIGRATED 4	/* vruntime is relative: add this rq's min_vruntime */
/* cfs_dequeue flags */
#define DEQ_SLEEP 1
#define DEQ_MIGRATE 2	/* leave vruntime relative to this rq's min_vruntime */

struct sched_entity {
	struct rb_node run_node;
	uint32_t weight;
	uint32_t wmult;			/* 2^32 / weight: weighting by multiply, not divide */
	int nice;
	bool on_rq;			/* in the tree or curr */
	uint64_t vruntime;		/* ns of weighted runtime (wraps safely) */
	uint64_t exec_start;		/* when curr started its current stretch */
	uint64_t sum_exec_runtime;	/* ns actually run */
	uint64_t prev_sum_exec_runtime;	/* sum_exec_runtime when last picked */
	struct sched_avg avg;		/* PELT: runnable and running history */
};

struct cfs_rq {
	struct rb_root timeline;
	struct sched_entity *curr;
	uint64_t min_vruntime;
	uint64_t load_weight;		/* sum of weights of on_rq entities */
	unsigned int nr_running;	/* on_rq entities, curr included */
};

uint32_t nice_to_weight(int nice);

void cfs_rq_init(struct cfs_rq *cfs);
void se_init(struct sched_entity *se, int nice);
/*
 * Change an entity's nice level, whether queued, running or not. If it is
 * curr, call cfs_update_curr() first, so time already run is charged at the
 * old weight.
 */
void cfs_reweight(struct cfs_rq *cfs, struct sched_entity *se, int nice);

/* Charge curr for the time since its exec_start. */
void cfs_update_curr(struct cfs_rq *cfs, uint64_t now);
void cfs_enqueue(struct cfs_rq *cfs, struct sched_entity *se, int flags);
void cfs_dequeue(struct cfs_rq *cfs, struct sched_entity *se, int flags);
/* Leftmost waiting entity (not curr), or NULL. */
struct sched_entity *cfs_pick_first(const struct cfs_rq *cfs);
/* Next waiting entity after @se in vruntime order, or NULL. */
struct sched_entity *cfs_next(const struct sched_entity *se);
/*
 * Who runs next: the smallest vruntime of curr (if still on_rq) and the
 * waiters, ties to a waiter; with @curr_yields, any waiter before curr.
 * NULL: nothing runnable. Call cfs_update_curr() first.
 */
struct sched_entity *cfs_pick_next(const struct cfs_rq *cfs, bool curr_yields);
/*
 * @next (NULL, curr or a waiter) becomes curr at @now. A different one
 * takes curr's place: curr, if still on_rq, goes back into the tree and
 * @next leaves it and starts a slice. Tree work only when curr changes.
 */
void cfs_set_next(struct cfs_rq *cfs, struct sched_entity *next, uint64_t now);
/* min_vruntime, brought up to date (the field alone may lag curr's progress). */
uint64_t cfs_min_vruntime(struct cfs_rq *cfs);

/* Wall-clock slice @se is due in one period, given the queue's load. */
uint64_t cfs_slice(const struct cfs_rq *cfs, const struct sched_entity *se);
/* Has curr used up its slice, or fallen far behind the leftmost? */
bool cfs_tick_should_preempt(const struct cfs_rq *cfs);
/* Should freshly enqueued @se preempt curr? */
bool cfs_wakeup_should_preempt(const struct cfs_rq *cfs, const struct sched_entity *se);

/* Wrap-safe signed difference a - b of two vruntimes. */
static inline int64_t vruntime_delta(uint64_t a, uint64_t b)
{
	return (int64_t)(a - b);
}

/* Check tree order, counts and load against the entities; false if broken. */
bool cfs_check(const struct cfs_rq *cfs);

struct rq;
struct task;
/* Its table's operations (include/kernel/sched/class.h: the core's direct calls). */
void fair_enqueue(struct rq *rq, struct task *p, int flags);
void fair_dequeue(struct rq *rq, struct task *p, int flags);
struct task *fair_pick_next(struct rq *rq, struct task *prev, bool yield, uint64_t now);
void fair_put_prev(struct rq *rq, struct task *prev);
void fair_update_curr(struct rq *rq, uint64_t now);
void fair_tick(struct rq *rq, struct task *curr, uint64_t now);
bool fair_check_preempt(const struct rq *rq, const struct task *p);
int fair_select_rq(struct task *p, int prev_cpu, bool wakeup);
void fair_migrate(struct rq *src, struct task *p);
/* The fair class's part of task_set_nice(): @p on locked @rq, charged up to @now if it runs. */
void fair_set_nice(struct rq *rq, struct task *p, int nice, uint64_t now);

#endif
