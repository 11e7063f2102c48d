/*
 * Host tests that boot the live scheduler from a board's DT (the kernel's
 * own kernel_init_dt(), as every port does) and queue real tasks on its run
 * queues: tests/host/test_balance.c, test_pack_select.c.
 */
#ifndef HOST_BOOT_H
#define HOST_BOOT_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "dtb_file.h"
#include "host_sched.h"

/*
 * Boot @nr CPUs of the DTB at @path (loaded once into @d) with pack mode
 * @pack at time @now, as the kernel does: every CPU online and idle, its
 * tick stopped (tickless), CPU 0 current. False (and why, on stderr) when
 * the DTB cannot be read.
 */
static inline bool host_boot_dt_tickless(struct dtb *d, const char *path, int nr, const char *pack, uint64_t now)
{
	char why[300];

	if (!d->len && !dtb_load(path, d, why, sizeof(why))) {
		fprintf(stderr, "%s\n", why);
		return false;
	}
	host_fake_now = now;
	kernel_init_dt(&d->fdt, nr, pack);
	for (int c = 0; c < nr; c++) {
		host_set_cpu_id(c);
		sched_init_cpu(c);
		sched_cpu_online(c);
	}
	host_set_cpu_id(0);
	return sched_topo.nr_cpus == nr;
}

/* The same, but no CPU counted tickless (the tests that kick idle CPUs choose which). */
static inline bool host_boot_dt(struct dtb *d, const char *path, int nr, const char *pack, uint64_t now)
{
	bool ok = host_boot_dt_tickless(d, path, nr, pack, now);

	memset(&nohz_idle_cpus, 0, sizeof(nohz_idle_cpus));
	return ok;
}

/*
 * @t (tid @tid), a fair task with no history, allowed on the CPUs of
 * @allowed, asleep with @cpu as its last CPU: what a test wakes.
 */
static inline void host_task(struct task *t, uint32_t tid, int cpu, uint32_t allowed)
{
	cpumask_t m = cpumask_from_u32(allowed);

	memset(t, 0, sizeof(*t));
	t->tid = tid;
	strcpy(t->name, "t");
	se_init(&t->se, 0);
	t->sched_class = sched_class_of_policy(SCHED_OTHER);
	pelt_init(&t->se.avg, host_fake_now);
	task_set_cpus(t, &m);
	t->cpu = cpu;
	t->state = TASK_SLEEPING;
}

/* Set @a to the given sums as of now (no time to age them by). */
static inline void host_set_avg(struct sched_avg *a, uint32_t runnable, uint32_t usage, uint32_t period)
{
	a->runnable_avg_sum = runnable;
	a->usage_avg_sum = usage;
	a->runnable_avg_period = period;
	a->period_contrib = 0;
	a->last_update_ns = host_fake_now;
}

#endif
