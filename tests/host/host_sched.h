/*
 * Helpers for host programs that run the live scheduler (sched_init(),
 * wake_up(), ...) on the portable core, over the host port
 * (tools/ports/host/host_arch.c: a fake clock in host_fake_now, no IPIs, no timer
 * hardware, no power-down, no energy meters): machines built by hand and
 * CPUs made busy. Used by tests/host/test_select.c and
 * tools/bench-host/sched_scale.c.
 */
#ifndef HOST_SCHED_H
#define HOST_SCHED_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "kernel/sched/sched.h"
#include "kernel/sched/sched_internal.h"
#include "kernel/time/timer.h"
#include "kernel/sched/topology.h"
#include "tools/ports/host/host_arch.h"

/*
 * A machine of @n CPUs (n >= 4, a power of two) as tools/bench-host/sched_scale.c
 * describes it: clusters of 4 CPUs (2 when n = 4), each its own power rail,
 * packages of 16 when n > 16; in each package the first half of the
 * clusters big (capacity 1024), the rest little (512). Call topology_build().
 */
static inline void host_make_topology(struct topology *t, int n)
{
	int cs = n >= 8 ? 4 : 2, per_pkg = 16;
	int pkg_cpus = n < per_pkg ? n : per_pkg, clusters_per_pkg = pkg_cpus / cs;

	memset(t, 0, sizeof(*t));
	t->nr_cpus = n;
	t->nr_clusters = n / cs;
	for (int i = 0; i < n; i++) {
		struct topo_cpu *c = &t->cpu[i];
		int cl = i / cs, pkg = i / per_pkg, cl_in_pkg = (i % per_pkg) / cs;

		c->hwid = ((uint32_t)pkg << 16) | ((uint32_t)(cl % 256) << 8) | (uint32_t)(i % cs);
		c->capacity = cl_in_pkg < clusters_per_pkg / 2 ? 1024u : 512u;
		c->cluster = cl;
		c->anc[0] = cl;
		c->nr_anc = 1;
		if (n > per_pkg) {
			c->anc[1] = 1000000 + pkg;
			c->nr_anc = 2;
		}
		c->rail_key = cl;
		c->compatible = "bench";
	}
}


/* The live scheduler on host_make_topology(@n) for @policy: every CPU online and idle, CPU 0 current. */
static inline void host_boot_machine(int n, const struct pack_policy *policy)
{
	host_make_topology(&sched_topo, n);
	topology_build(&sched_topo, policy);
	sched_init(n);
	for (int c = 0; c < n; c++) {
		host_set_cpu_id(c);
		sched_init_cpu(c);
		sched_cpu_online(c);
	}
	host_set_cpu_id(0);
}

/* @t, a sleeping task (tid 1, @name) allowed on CPUs 0..@n-1, with no history: what a test wakes. */
static inline void host_sleeper(struct task *t, const char *name, int n)
{
	cpumask_t all = { { 0 } };

	memset(t, 0, sizeof(*t));
	t->tid = 1;
	strncpy(t->name, name, sizeof(t->name) - 1);
	se_init(&t->se, 0);
	t->sched_class = sched_class_of_policy(SCHED_OTHER);
	pelt_init(&t->se.avg, host_fake_now);
	for (int c = 0; c < n; c++)
		cpumask_set(&all, c);
	task_set_cpus(t, &all);
	t->state = TASK_SLEEPING;
}

/* @cpu runs @t, a task pinned there, as the switch to it would leave its run queue. */
static inline void host_run_busy(struct task *t, int cpu)
{
	struct rq *rq = cpu_rq(cpu);
	cpumask_t own = cpumask_of(cpu);

	memset(t, 0, sizeof(*t));
	t->state = TASK_RUNNABLE;
	t->cpu = cpu;
	t->on_rq = true;
	task_set_cpus(t, &own);
	se_init(&t->se, 0);
	t->sched_class = sched_class_of_policy(SCHED_OTHER);
	rq->curr = t;
	rq->nr_running = 1;
	rq->cfs.nr_running = 1;
	rq->cfs.load_weight = t->se.weight;
	sched_set_idle_hint(cpu, false);
}

#endif
