/*
 * The RT class's per-CPU queue state that push and pull read without the
 * queue's lock (kernel/sched/rt.c), driven through the class's own
 * operations on TC2's DT booted live (no push or pull runs: the work they
 * ask for waits in rq->class_work):
 * - overloaded (the CPU in rt_overloaded) only when a second RT task is
 *   queued and one of the queue may run elsewhere: pinned tasks never make
 *   a CPU overloaded (every pick would run a push pass that moves nothing);
 * - rq->rt.waiting, the highest priority of a migratory task that waits
 *   (queued, not running): what a puller compares with its own level. It
 *   follows every pick.
 * Run from the repository root (tests/run.py does): build/tc2/tc2.dtb.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "ktest.h"
#include "host_boot.h"
#include "kernel/sched/class.h"
#include "kernel/sched/sched.h"
#include "kernel/sched/sched_internal.h"

#define NCPU 5
#define ALL ((1u << NCPU) - 1)
#define MS 1000000ull

static struct dtb tc2;
static struct task tk[4];
static const struct sched_class *rt;

static bool boot(void)
{
	static uint64_t t0;

	t0 += 100000 * MS;
	if (!host_boot_dt(&tc2, "build/tc2/tc2.dtb", NCPU, "off", t0))
		return false;
	rt = sched_class_of_policy(SCHED_FIFO);
	return rt != NULL;
}

/* Task @i, SCHED_FIFO @prio, allowed on @allowed, queued on @cpu by its class. */
static struct task *fifo_on(int i, int prio, uint32_t allowed, int cpu)
{
	struct task *p = &tk[i];

	host_task(p, 300 + (uint32_t)i, cpu, allowed);
	p->policy = SCHED_FIFO;
	p->rt_priority = p->prio = prio;
	p->sched_class = rt;
	rt->enqueue(cpu_rq(cpu), p, 0);
	return p;
}

static bool overloaded(int cpu)
{
	return cpu_rq(cpu)->rt.overloaded && cpumask_test(&rt_overloaded, cpu);
}

KT_CASE(pinned_tasks_never_overload_a_cpu)
{
	struct task *m;

	KT_ASSERT(boot());
	fifo_on(0, 50, 1u << 0, 0);
	fifo_on(1, 60, 1u << 0, 0);
	KT_ASSERT_EQ(cpu_rq(0)->rt.nr_running, 2);
	KT_ASSERT(!cpu_rq(0)->rt.overloaded);
	KT_ASSERT(!cpumask_test(&rt_overloaded, 0));
	KT_ASSERT_EQ(cpu_rq(0)->rt.waiting, 0);
	/* A third that may run anywhere: it waits here, so the CPU is overloaded. */
	m = fifo_on(2, 40, ALL, 0);
	KT_ASSERT(overloaded(0));
	KT_ASSERT_EQ(cpu_rq(0)->rt.waiting, 40);
	/* It leaves: pinned ones only again. */
	rt->dequeue(cpu_rq(0), m, 0);
	KT_ASSERT(!cpu_rq(0)->rt.overloaded);
	KT_ASSERT(!cpumask_test(&rt_overloaded, 0));
	KT_ASSERT_EQ(cpu_rq(0)->rt.waiting, 0);
}

KT_CASE(the_waiting_level_follows_each_pick)
{
	struct rq *rq;
	struct task *next;

	KT_ASSERT(boot());
	rq = cpu_rq(3);
	fifo_on(0, 50, ALL, 3);
	fifo_on(1, 40, ALL, 3);
	KT_ASSERT_EQ(rq->rt.waiting, 50);	/* the idle task runs: both wait */
	next = rt->pick_next(rq, rq->curr, false, host_fake_now);
	KT_ASSERT(next == &tk[0]);
	KT_ASSERT_EQ(rq->rt.waiting, 40);	/* 50 runs now: 40 is what waits */
	/* A second at 50 queued behind the running one: 50 waits too. */
	fifo_on(2, 50, ALL, 3);
	KT_ASSERT_EQ(rq->rt.waiting, 50);
}

/*
 * Throttled, every RT task of the CPU waits (a puller may take any): the
 * published level is the queue's with no task running, whatever curr is.
 * Seen broken under the parallel-vCPU stress (`stress 60 5203 300 rt`,
 * MTTCG): a task queued on a CPU whose RT task had just been throttled,
 * before the switch away from it, published the level as if that task
 * still ran; the checker then found waiting 45 where the queue gave 50.
 */
KT_CASE(a_throttled_cpu_publishes_every_rt_task_as_waiting)
{
	struct rq *rq;
	struct task *run;
	uint64_t t;

	KT_ASSERT(boot());
	rq = cpu_rq(3);
	fifo_on(0, 50, ALL, 3);
	run = rt->pick_next(rq, rq->curr, false, host_fake_now);
	KT_ASSERT(run == &tk[0]);
	rq->curr = run;
	rt->set_curr(rq, run, host_fake_now);
	/* A first tick starts the throttling period; the next, 960 ms of running later, throttles. */
	t = host_fake_now;
	rt->tick(rq, run, t);
	rt->tick(rq, run, t + 960 * MS);
	KT_ASSERT(rq->rt.throttled);
	KT_ASSERT_EQ(rq->rt.waiting, 50);
	KT_ASSERT(rt->check(rq) == NULL);
	/* Before the switch away from it, another migratory task arrives: both wait. */
	fifo_on(1, 45, ALL, 3);
	KT_ASSERT_EQ(rq->rt.waiting, 50);
	KT_ASSERT(rt->check(rq) == NULL);
	/* The period ends with the throttled task still curr: it runs again, 45 waits. */
	rt->tick(rq, run, t + 2000 * MS);
	KT_ASSERT(!rq->rt.throttled);
	KT_ASSERT_EQ(rq->rt.waiting, 45);
	KT_ASSERT(rt->check(rq) == NULL);
	/* What the invariant check's panic line says of a wrong level. */
	rq->rt.waiting = 7;
	KT_ASSERT(rt->check(rq) != NULL);
	KT_ASSERT(strstr(rt->check(rq), "waiting 7, the queue gives 45 (throttled 0, curr ") != NULL);
	rq->rt.waiting = 45;
}
