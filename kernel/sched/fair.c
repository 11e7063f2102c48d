/* Fair class arithmetic; the contract is in include/kernel/sched/fair.h. */
#include "kernel/sched/fair.h"

#include <string.h>

#include "kernel/lib/panic.h"
#include "arch/cost.h"
#include "arch/cpu.h"
#include "kernel/sched/sched_internal.h"
#include "kernel/trace/trace.h"

/*
 * On the switch path: inlined into the core's calls (the kernel links with
 * LTO; include/kernel/sched/class.h's sched_class_call()), as they were
 * before the class table, where their several callers made GCC keep them
 * apart (ctxsw 318 -> 398 instructions).
 */
#define HOT_INLINE __attribute__((always_inline)) inline

/*
 * Weight per nice level: each step is ~1.25x, so one nice level apart
 * means ~10% CPU difference between two competitors (Linux's table).
 */
static const uint32_t nice_weights[NICE_MAX - NICE_MIN + 1] = {
	/* -20 */ 88761, 71755, 56483, 46273, 36291,
	/* -15 */ 29154, 23254, 18705, 14949, 11916,
	/* -10 */ 9548, 7620, 6100, 4904, 3906,
	/*  -5 */ 3121, 2501, 1991, 1586, 1277,
	/*   0 */ 1024, 820, 655, 526, 423,
	/*   5 */ 335, 272, 215, 172, 137,
	/*  10 */ 110, 87, 70, 56, 45,
	/*  15 */ 36, 29, 23, 18, 15,
};

uint32_t nice_to_weight(int nice)
{
	KASSERT(nice >= NICE_MIN && nice <= NICE_MAX);
	return nice_weights[nice - NICE_MIN];
}

static struct sched_entity *node_se(const struct rb_node *n)
{
	return n ? (struct sched_entity *)((char *)n - offsetof(struct sched_entity, run_node))
		 : NULL;
}

static bool vruntime_less(const struct rb_node *a, const struct rb_node *b)
{
	return vruntime_delta(node_se(a)->vruntime, node_se(b)->vruntime) < 0;
}

void cfs_rq_init(struct cfs_rq *cfs)
{
	memset(cfs, 0, sizeof(*cfs));
	/* Start near the wrap point so wrap-safety is exercised early. */
	cfs->min_vruntime = (uint64_t)(-(1ll << 20));
}

void se_init(struct sched_entity *se, int nice)
{
	memset(se, 0, sizeof(*se));
	se->nice = nice;
	se->weight = nice_to_weight(nice);
	se->wmult = (uint32_t)((1ull << 32) / se->weight);
}

/*
 * delta * NICE_0_WEIGHT / weight as (delta * wmult) >> 22 (NICE_0_WEIGHT is
 * 2^10, wmult 2^32 / weight), in two 32x32 halves: no 64-bit division on
 * the hot paths (the Cortex-A9 has no divider; the library call is ~120
 * instructions). Relative error below weight / 2^32 (2e-5 at nice -20);
 * no overflow for delta below 2^54 ns.
 */
static uint64_t weighted(uint64_t delta, const struct sched_entity *se)
{
	uint64_t lo, hi;

	if (se->weight == NICE_0_WEIGHT)
		return delta;
	lo = (uint64_t)(uint32_t)delta * se->wmult;
	hi = (delta >> 32) * se->wmult;
	return (hi << 10) + (lo >> 22);
}

/*
 * min_vruntime = max(itself, min(curr, leftmost)). Between changes of the
 * queue's membership only curr's vruntime moves, and only forward, so
 * sampling before every insertion and every read gives the same value as
 * sampling after every update of curr: cfs_update_curr() (every switch and
 * tick) leaves it alone. Removals and put/pick only raise min(curr,
 * leftmost), which the next sample sees.
 */
static void update_min_vruntime(struct cfs_rq *cfs)
{
	const struct sched_entity *curr = cfs->curr, *left = node_se(rb_first(&cfs->timeline));
	uint64_t v;

	if (curr && curr->on_rq)
		v = left && vruntime_delta(left->vruntime, curr->vruntime) < 0 ? left->vruntime : curr->vruntime;
	else if (left)
		v = left->vruntime;
	else
		return;
	if (vruntime_delta(v, cfs->min_vruntime) > 0)
		cfs->min_vruntime = v;
}

uint64_t cfs_min_vruntime(struct cfs_rq *cfs)
{
	update_min_vruntime(cfs);
	return cfs->min_vruntime;
}

HOT_INLINE void cfs_update_curr(struct cfs_rq *cfs, uint64_t now)
{
	struct sched_entity *curr = cfs->curr;
	uint64_t delta;

	if (!curr)
		return;
	/* A clock read on another CPU may be a little behind: never charge negative time. */
	if (vruntime_delta(now, curr->exec_start) <= 0)
		return;
	delta = now - curr->exec_start;
	curr->exec_start = now;
	curr->sum_exec_runtime += delta;
	curr->vruntime += weighted(delta, curr);
}

/* rb_insert() with the vruntime comparison inline: this runs on every switch. */
static void timeline_insert(struct cfs_rq *cfs, struct sched_entity *se)
{
	struct rb_node **link = &cfs->timeline.root, *parent = NULL;
	bool leftmost = true;

	if (!*link) {	/* a task waking on an empty queue: no descent, no fix-up */
		rb_insert_single(&cfs->timeline, &se->run_node);
		return;
	}
	while (*link) {
		parent = *link;
		if (vruntime_delta(se->vruntime, node_se(parent)->vruntime) < 0) {
			link = &parent->left;
		} else {
			link = &parent->right;
			leftmost = false;
		}
	}
	rb_insert_at(&cfs->timeline, &se->run_node, parent, link, leftmost);
}

static uint64_t sched_period(unsigned int nr_running)
{
	if (nr_running > SCHED_NR_LATENCY)
		return nr_running * SCHED_MIN_GRAN_NS;
	return SCHED_LATENCY_NS;
}

uint64_t cfs_slice(const struct cfs_rq *cfs, const struct sched_entity *se)
{
	unsigned int nr = cfs->nr_running + (se->on_rq ? 0 : 1);
	uint64_t load = cfs->load_weight + (se->on_rq ? 0 : se->weight);

	return sched_period(nr) * se->weight / load;
}

/* Place an entity that is (re)joining the queue. */
static void place_entity(struct cfs_rq *cfs, struct sched_entity *se, int flags)
{
	uint64_t v = cfs->min_vruntime;

	if (flags & ENQ_NEW) {
		/* Start a slice behind: spawning cannot be used to grab the CPU. */
		se->vruntime = v + weighted(cfs_slice(cfs, se), se);
		return;
	}
	if (flags & ENQ_WAKEUP) {
		/* Sleepers get at most half a latency of credit. */
		uint64_t credited = v - SCHED_LATENCY_NS / 2;

		if (vruntime_delta(se->vruntime, credited) < 0)
			se->vruntime = credited;
	}
}

void cfs_enqueue(struct cfs_rq *cfs, struct sched_entity *se, int flags)
{
	KASSERT_DEBUG(!se->on_rq);
	update_min_vruntime(cfs);	/* before @se can lower min(curr, leftmost) */
	if (flags & ENQ_MIGRATED)
		se->vruntime += cfs->min_vruntime;
	place_entity(cfs, se, flags);
	if (se != cfs->curr)
		timeline_insert(cfs, se);
	se->on_rq = true;
	cfs->load_weight += se->weight;
	cfs->nr_running++;
}

void cfs_dequeue(struct cfs_rq *cfs, struct sched_entity *se, int flags)
{
	KASSERT_DEBUG(se->on_rq && cfs->nr_running > 0);
	/*
	 * Sample while @se still counts: if it was holding min_vruntime back,
	 * the DEQ_MIGRATE normalisation below must be against that value, or
	 * the move would hand @se a credit.
	 */
	update_min_vruntime(cfs);
	if (se != cfs->curr)
		rb_erase(&cfs->timeline, &se->run_node);
	else
		cfs->curr = NULL;
	se->on_rq = false;
	cfs->load_weight -= se->weight;
	cfs->nr_running--;
	if (flags & DEQ_MIGRATE)
		se->vruntime -= cfs->min_vruntime;
}

struct sched_entity *cfs_pick_first(const struct cfs_rq *cfs)
{
	return node_se(rb_first(&cfs->timeline));
}

struct sched_entity *cfs_next(const struct sched_entity *se)
{
	return node_se(rb_next(&se->run_node));
}

HOT_INLINE struct sched_entity *cfs_pick_next(const struct cfs_rq *cfs, bool curr_yields)
{
	struct sched_entity *curr = cfs->curr, *left = cfs_pick_first(cfs);

	if (!curr || !curr->on_rq)
		return left;
	if (!left)
		return curr;
	/* Ties go to the waiter, as if curr had been put back in the tree (right of equals). */
	return curr_yields || vruntime_delta(left->vruntime, curr->vruntime) <= 0 ? left : curr;
}

/*
 * The waiter @next leaves the tree and @prev goes back in. When @next is
 * the leftmost and @prev orders before @next's successor (two tasks taking
 * turns, a wakee preempting the only other task), @prev simply takes
 * @next's place: O(1), no rebalancing, the same order as insert + erase.
 */
static void timeline_swap(struct cfs_rq *cfs, struct sched_entity *prev, struct sched_entity *next)
{
	if (rb_first(&cfs->timeline) == &next->run_node) {
		const struct rb_node *succ = rb_next(&next->run_node);

		if (!succ || vruntime_delta(prev->vruntime, node_se(succ)->vruntime) < 0) {
			rb_replace(&cfs->timeline, &next->run_node, &prev->run_node);
			return;
		}
	}
	timeline_insert(cfs, prev);
	rb_erase(&cfs->timeline, &next->run_node);
}

HOT_INLINE void cfs_set_next(struct cfs_rq *cfs, struct sched_entity *next, uint64_t now)
{
	struct sched_entity *prev = cfs->curr;

	if (next == prev)
		return;		/* curr goes on: its slice too */
	KASSERT_DEBUG(!next || next->on_rq);
	/* Two tasks taking turns: @next is the whole tree, @prev becomes it (inline: no walk, no fix-ups). */
	if (prev && prev->on_rq && next && rb_is_single(&cfs->timeline, &next->run_node))
		rb_replace_single(&cfs->timeline, &next->run_node, &prev->run_node);
	else if (prev && prev->on_rq && next)
		timeline_swap(cfs, prev, next);
	else if (prev && prev->on_rq)
		timeline_insert(cfs, prev);
	else if (next && rb_is_single(&cfs->timeline, &next->run_node))
		rb_erase_single(&cfs->timeline, &next->run_node);	/* from idle: the queue's only task */
	else if (next)
		rb_erase(&cfs->timeline, &next->run_node);
	cfs->curr = next;
	if (next) {
		next->exec_start = now;
		next->prev_sum_exec_runtime = next->sum_exec_runtime;
	}
}

void cfs_reweight(struct cfs_rq *cfs, struct sched_entity *se, int nice)
{
	uint32_t w = nice_to_weight(nice);

	if (se->on_rq)
		cfs->load_weight = cfs->load_weight - se->weight + w;
	se->weight = w;
	se->wmult = (uint32_t)((1ull << 32) / w);
	se->nice = nice;
}

bool cfs_tick_should_preempt(const struct cfs_rq *cfs)
{
	const struct sched_entity *curr = cfs->curr, *left;
	uint64_t ideal, ran;

	if (!curr)
		return false;
	ideal = cfs_slice(cfs, curr);
	ran = curr->sum_exec_runtime - curr->prev_sum_exec_runtime;
	if (ran >= ideal)
		return true;
	if (ran < SCHED_MIN_GRAN_NS)
		return false;
	left = cfs_pick_first(cfs);
	return left && vruntime_delta(curr->vruntime, left->vruntime) > (int64_t)ideal;
}

bool cfs_wakeup_should_preempt(const struct cfs_rq *cfs, const struct sched_entity *se)
{
	const struct sched_entity *curr = cfs->curr;

	if (!curr || curr == se)
		return false;
	/* The granularity is in the wakee's virtual time: light wakees need a bigger lead. */
	return vruntime_delta(curr->vruntime, se->vruntime) >
	       (int64_t)weighted(SCHED_WAKEUP_GRAN_NS, se);
}

bool cfs_check(const struct cfs_rq *cfs)
{
	unsigned int n = 0;
	uint64_t load = 0;

	if (rb_check(&cfs->timeline, vruntime_less) < 0)
		return false;
	for (const struct sched_entity *se = cfs_pick_first(cfs); se; se = cfs_next(se)) {
		if (!se->on_rq || se == cfs->curr)
			return false;
		n++;
		load += se->weight;
	}
	if (cfs->curr && cfs->curr->on_rq) {
		n++;
		load += cfs->curr->weight;
	}
	return n == cfs->nr_running && load == cfs->load_weight;
}

/* ---------------------------------------------------------------- the class */

/*
 * The fair class's table (include/kernel/sched/class.h): the arithmetic
 * above on each rq's cfs queue, SCHED_OTHER tasks. Its placement is the
 * project's: the placement policy (include/kernel/pack/pack.h), then the
 * seeds' kernel's fallbacks (kernel/sched/select.c); its load balancing is
 * kernel/sched/balance.c.
 */

static void fair_init_rq(struct rq *rq)
{
	cfs_rq_init(&rq->cfs);
}

HOT_INLINE void fair_enqueue(struct rq *rq, struct task *p, int flags)
{
	if (__builtin_expect(flags & ENQ_NEW, 0))
		rq_attach_new(rq);	/* before the core's rq_avg_sync(): the same series */
	cfs_enqueue(&rq->cfs, &p->se, flags);
}

HOT_INLINE void fair_dequeue(struct rq *rq, struct task *p, int flags)
{
	cfs_dequeue(&rq->cfs, &p->se, flags);
}

HOT_INLINE struct task *fair_pick_next(struct rq *rq, struct task *prev, bool yield, uint64_t now)
{
	struct sched_entity *se = cfs_pick_next(&rq->cfs, yield);

	(void)prev;
	cfs_set_next(&rq->cfs, se, now);
	return se ? task_of_se(se) : NULL;
}

void fair_put_prev(struct rq *rq, struct task *prev)
{
	(void)prev;
	cfs_set_next(&rq->cfs, NULL, 0);	/* back in the tree if still runnable */
}

static void fair_set_curr(struct rq *rq, struct task *p, uint64_t now)
{
	cfs_set_next(&rq->cfs, &p->se, now);
}

HOT_INLINE void fair_update_curr(struct rq *rq, uint64_t now)
{
	cfs_update_curr(&rq->cfs, now);
}

HOT_INLINE void fair_tick(struct rq *rq, struct task *curr, uint64_t now)
{
	(void)curr;
	cfs_update_curr(&rq->cfs, now);
	if (rq->cfs.nr_running > 1) {
		/*
		 * The placement policy's look at a CPU with tasks queued
		 * (pack=energy: overutilized), under the rq lock; its look at
		 * every busy CPU comes with balancing (balance_tick()). Not at
		 * every tick: that cost every policy's tick 16 instructions
		 * (bench-guard's tick_irq, +2.1%).
		 */
		if (rq->policy_tick)
			rq->policy_tick(rq);
		if (cfs_tick_should_preempt(&rq->cfs))
			rq->need_resched = true;
	}
}

HOT_INLINE bool fair_check_preempt(const struct rq *rq, const struct task *p)
{
	return cfs_wakeup_should_preempt(&rq->cfs, &p->se);
}

/*
 * A wake-up: the placement policy's choice (a light waking task to its
 * CPU's pack buddy, ...), else the waker's CPU or prev and an idle CPU of
 * that one's cluster (select_wake_fallback()); a new task: the idlest CPU
 * machine-wide (select_idlest_cpu()). Packing is the fair class's only,
 * as in the seeds.
 */
int fair_select_rq(struct task *p, int prev_cpu, bool wakeup)
{
	if (wakeup) {
		const struct pack_policy *policy = READ_ONCE(sched_topo.policy);
		int target = -1, why;

		arch_cost(COST_SELECT);
		why = policy->select(p, prev_cpu, &target);
		pack_count(prev_cpu, why);
		trace_sched_pack(p, prev_cpu, policy, why, target);
		if (target >= 0) {
			KASSERT_DEBUG(task_allowed_on(p, target));
			return target;
		}
		return select_wake_fallback(p, prev_cpu, arch_cpu_id());
	}
	return select_idlest_cpu(p, prev_cpu);
}

/* Leaving @src: vruntime relative to its min_vruntime, which the next queue adds its own to (ENQ_MIGRATED). */
void fair_migrate(struct rq *src, struct task *p)
{
	p->se.vruntime -= cfs_min_vruntime(&src->cfs);
}

/*
 * From another class: it starts level with the queue, neither owed nor
 * owing (its old vruntime is stale). One on its way to a CPU will be
 * enqueued with ENQ_MIGRATED or ENQ_NEW (core.c's enqueue_on()): relative
 * 0, which that queue rebases (ENQ_NEW ignores it).
 */
static void fair_switched_to(struct rq *rq, struct task *p)
{
	p->se.vruntime = p->state == TASK_WAKING ? 0 : cfs_min_vruntime(&rq->cfs);
}

static void fair_for_each_queued(const struct rq *rq, void (*fn)(const struct task *p, void *arg), void *arg)
{
	if (rq->cfs.curr)
		fn(task_of_se(rq->cfs.curr), arg);
	for (struct sched_entity *se = cfs_pick_first(&rq->cfs); se; se = cfs_next(se))
		fn(task_of_se(se), arg);
}

static const char *fair_check(const struct rq *rq)
{
	return cfs_check(&rq->cfs) ? NULL : "its tree, sums or min_vruntime (cfs_check)";
}

void fair_set_nice(struct rq *rq, struct task *p, int nice, uint64_t now)
{
	if (rq->cfs.curr == &p->se)
		cfs_update_curr(&rq->cfs, now);
	cfs_reweight(&rq->cfs, &p->se, nice);
}

struct sched_class fair_sched_class = {
	.name = "fair",
	.policies = SCHED_POLICY_BIT(SCHED_OTHER),
	.init_rq = fair_init_rq,
	.enqueue = fair_enqueue,
	.dequeue = fair_dequeue,
	.pick_next = fair_pick_next,
	.put_prev = fair_put_prev,
	.set_curr = fair_set_curr,
	.update_curr = fair_update_curr,
	.tick = fair_tick,
	.check_preempt = fair_check_preempt,
	.select_rq = fair_select_rq,
	.migrate = fair_migrate,
	.switched_to = fair_switched_to,
	.for_each_queued = fair_for_each_queued,
	.check = fair_check,
};
SCHED_CLASS(fair_sched_class, 20);
