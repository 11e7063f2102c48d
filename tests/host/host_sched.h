/*
 * The arch and platform hooks kernel/sched/core.c and its neighbours call, for
 * host programs that run the live scheduler (sched_init(), wake_up(), ...)
 * on the portable core: a fake clock (host_fake_now, set by the program),
 * no IPIs, no timer hardware, no power-down, no energy meters. Definitions,
 * not declarations: include it in exactly one translation unit per binary
 * (tests/host/test_select.c, tools/bench-host/sched_scale.c).
 */
#ifndef HOST_SCHED_H
#define HOST_SCHED_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "arch/ipi.h"
#include "kernel/energy_meter.h"
#include "kernel/power.h"
#include "kernel/sched.h"
#include "kernel/sched/sched_internal.h"
#include "kernel/timer.h"
#include "kernel/topology.h"

uint64_t host_fake_now = 1000000000ull;

uint64_t arch_now_ns(void)
{
	return host_fake_now;
}

void arch_timer_program(uint64_t deadline_ns)
{
	(void)deadline_ns;
}

void arch_send_reschedule(int cpu)
{
	(void)cpu;
}

void platform_cpu_power_down(int cpu, bool domain, bool last_man)
{
	(void)cpu;
	(void)domain;
	(void)last_man;
}

void platform_cluster_power_down(int rail)
{
	(void)rail;
}

void platform_cluster_power_up(int rail)
{
	(void)rail;
}

/*
 * The energy meters' driver half (drivers/vexpress_energy.c on ARM): the
 * energy model, which the placement code may consult, links against it.
 * No meters here. Weak, in case the host library grows its own stubs.
 */
__attribute__((weak)) int energy_meter_init_dt(const struct fdt *fdt)
{
	(void)fdt;
	return 0;
}

__attribute__((weak)) bool energy_meter_available(void)
{
	return false;
}

__attribute__((weak)) int energy_meter_count(void)
{
	return 0;
}

__attribute__((weak)) int energy_meter_cluster(int i)
{
	(void)i;
	return -1;
}

__attribute__((weak)) const char *energy_meter_label(int i)
{
	(void)i;
	return "";
}

__attribute__((weak)) int energy_meter_read_uj(int i, uint64_t *uj)
{
	(void)i;
	*uj = 0;
	return -1;
}

__attribute__((weak)) int energy_meter_read_uw(int i, uint32_t *uw)
{
	(void)i;
	*uw = 0;
	return -1;
}


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
	rq->curr = t;
	rq->cfs.nr_running = 1;
	sched_set_idle_hint(cpu, false);
}

#endif
