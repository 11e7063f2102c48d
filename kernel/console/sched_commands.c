/*
 * Console commands of the scheduler: ps, top, spawn, schedtest.
 * `schedtest` runs the built-in behaviour checks the QEMU tests use:
 *   schedtest fair <tasks> <ms> [nice...]  CPU-bound tasks, share of CPU each
 *   schedtest nice <cpu> <ms> <nice...>    the same, all on one CPU
 *   schedtest wake <tasks> <iters> <us>    sleepers: every wake-up counted
 *   schedtest idle <ms>                    ticks taken by idle CPUs
 *   schedtest pin <tasks> <ms> <cpu> <cpu2> pinned tasks, re-pinned halfway
 *   schedtest duty <ms> <period_us> <duty%>...  periodic tasks: PELT's view
 *   schedtest light <tasks> <ms> <busy_us> <period_us>  many small tasks: where they run
 */
#include <stdlib.h>
#include <string.h>

#include "arch/barrier.h"
#include "arch/cost.h"

#include "kernel/lib/cmdline.h"
#include "kernel/lib/format.h"
#include "kernel/lib/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/console/shell.h"
#include "kernel/time/time.h"
#include "kernel/sched/topology.h"

#ifndef CONFIG_MAX_TEST_TASKS
#define CONFIG_MAX_TEST_TASKS 256
#endif
#define MAX_TEST_TASKS CONFIG_MAX_TEST_TASKS

static void ps_line(const struct task *t, void *arg)
{
	(void)arg;
	/* ps -c's CLS and RTPRIO: the policy, and the effective RT priority ("-" for none, as ps). */
	char rtprio[4] = "-";

	if (t->prio > 0)
		ksnprintf(rtprio, sizeof(rtprio), "%d", t->prio);
	kprintf("%5u %-15s %-8s %3d %-3s %6s %4d %12llu %10llu %8llu\n", (unsigned)t->tid, t->name,
		task_state_name(t), t->cpu, t->is_idle ? "-" : sched_policy_short(t->policy), rtprio, t->se.nice,
		(unsigned long long)(t->se.vruntime / 1000),
		(unsigned long long)(t->se.sum_exec_runtime / 1000),
		(unsigned long long)t->nr_switches);
}

static int cmd_ps(int argc, char **argv)
{
	(void)argv;
	if (argc != 1) {
		kprintf("error: ps takes no arguments\n");
		return 1;
	}
	kprintf("  tid name            state    cpu cls rtprio nice  vruntime_us runtime_us switches\n");
	sched_for_each_task(ps_line, NULL);
	return 0;
}

static void top_once(uint64_t *last_busy, uint64_t *last_idle)
{
	uint64_t now = arch_now_ns();

	for (int cpu = 0; cpu < sched_nr_cpus(); cpu++) {
		struct rq *rq = cpu_rq(cpu);
		uint64_t busy, idle, b, i, busy_pct;

		if (!sched_cpu_online_now(cpu))
			continue;	/* never came online: no figure */
		sched_cpu_time(cpu, now, &busy, &idle);
		b = busy - last_busy[cpu];
		i = idle - last_idle[cpu];
		busy_pct = (b + i) ? b * 100 / (b + i) : 0;
		last_busy[cpu] = busy;
		last_idle[cpu] = idle;
		kprintf("cpu%d %3u%% busy  nr_running %2u  curr %-15s ticks %llu\e[K\n", cpu,
			(unsigned)busy_pct, rq->nr_running, rq->curr ? rq->curr->name : "(offline)",
			(unsigned long long)rq->ticks);
	}
}

static int cmd_top(int argc, char **argv)
{
	uint64_t last_busy[CONFIG_NR_CPUS] = { 0 }, last_idle[CONFIG_NR_CPUS] = { 0 };
	long rounds = argc > 1 ? strtol(argv[1], NULL, 10) : 5;

	if (argc > 2 || rounds <= 0 || rounds > 1000) {
		kprintf("error: usage: top [rounds 1..1000]\n");
		return 1;
	}
	for (long r = 0; r < rounds; r++) {
		if (r)
			kprintf("\e[%dA", sched_nr_cpus());	/* redraw in place */
		top_once(last_busy, last_idle);
		task_sleep_ns(NSEC_PER_SEC / 2);
	}
	return 0;
}

struct spin_arg {
	uint64_t until_ns;
};

static void spin_fn(void *arg)
{
	const struct spin_arg *a = arg;

	arch_spin_until(a->until_ns);
}

struct sleeper_arg {
	uint64_t period_ns;
	uint32_t iterations;
	volatile uint32_t done;
};

static void sleeper_fn(void *arg)
{
	struct sleeper_arg *a = arg;
	uint64_t next = arch_now_ns();

	for (uint32_t i = 0; i < a->iterations; i++) {
		next += a->period_ns;
		task_sleep_until(next);
		a->done++;
	}
}

static struct task *test_tasks[MAX_TEST_TASKS];
static struct spin_arg spin_args[MAX_TEST_TASKS];
static struct sleeper_arg sleeper_args[MAX_TEST_TASKS];

/* Busy time of @cpu so far, including the stretch its current task is in. */
static uint64_t cpu_busy_ns(int cpu, uint64_t now)
{
	uint64_t busy, idle;

	sched_cpu_time(cpu, now, &busy, &idle);
	return busy;
}

/* CPU-bound tasks allowed on @mask for @ms; prints each one's share of the CPU time used. */
static int run_fair(long n, long ms, const long *nice, uint32_t mask)
{
	uint64_t start, total = 0, runtime[MAX_TEST_TASKS];

	uint64_t b0[CONFIG_NR_CPUS] = { 0 }, end;

	start = arch_now_ns();
	for (int cpu = 0; cpu < sched_nr_cpus(); cpu++)
		b0[cpu] = cpu_busy_ns(cpu, start);
	for (long i = 0; i < n; i++) {
		spin_args[i].until_ns = start + (uint64_t)ms * NSEC_PER_MSEC;
		test_tasks[i] = task_create("spin", spin_fn, &spin_args[i], (int)nice[i], mask);
		if (!test_tasks[i]) {
			kprintf("error: could not create task %ld\n", i);
			while (i--)
				task_join(test_tasks[i]);
			return 1;
		}
	}
	for (long i = 0; i < n; i++) {
		task_join(test_tasks[i]);
		/* The slot stays intact until reused: read the final account. */
		runtime[i] = test_tasks[i]->se.sum_exec_runtime;
		total += runtime[i];
	}
	end = arch_now_ns();
	for (int cpu = 0; cpu < sched_nr_cpus(); cpu++)
		if (sched_cpu_online_now(cpu))
			kprintf("fair: cpu%d busy_pct=%llu\n", cpu,
				(unsigned long long)((cpu_busy_ns(cpu, end) - b0[cpu]) * 100 / (end - start)));
	if (total == 0)
		total = 1;
	for (long i = 0; i < n; i++)
		kprintf("fair: task %ld nice %ld runtime_us=%llu share=%llu.%02llu%%\n", i, nice[i],
			(unsigned long long)(runtime[i] / 1000),
			(unsigned long long)(runtime[i] * 100 / total),
			(unsigned long long)(runtime[i] * 10000 / total % 100));
	kprintf("fair: tasks=%ld cpus=%d wall_us=%llu total_runtime_us=%llu\n", n,
		__builtin_popcount(mask), (unsigned long long)((arch_now_ns() - start) / 1000),
		(unsigned long long)(total / 1000));
	return 0;
}

static bool parse_nices(int argc, char **argv, int first, long *nice)
{
	for (int i = first; i < argc; i++)
		if (!cmdline_parse_long(argv[i], NICE_MIN, NICE_MAX, &nice[i - first])) {
			kprintf("error: nice '%s' is not in %d..%d\n", argv[i], NICE_MIN, NICE_MAX);
			return false;
		}
	return true;
}

static int test_fair(int argc, char **argv)
{
	long n, ms, nice[MAX_TEST_TASKS] = { 0 };

	if (argc < 4 || !cmdline_parse_long(argv[2], 1, MAX_TEST_TASKS, &n) ||
	    !cmdline_parse_long(argv[3], 1, 600000, &ms) || argc > 4 + n) {
		kprintf("error: usage: schedtest fair <tasks 1..%d> <ms> [nice...]\n", MAX_TEST_TASKS);
		return 1;
	}
	if (!parse_nices(argc, argv, 4, nice))
		return 1;
	return run_fair(n, ms, nice, TASK_CPUS_ANY);
}

/* Tasks of the given nice levels competing for one CPU. */
static int test_nice(int argc, char **argv)
{
	long ms, cpu, nice[MAX_TEST_TASKS] = { 0 };

	if (argc < 5 || argc > 4 + MAX_TEST_TASKS || !cmdline_parse_long(argv[2], 0, sched_nr_cpus() - 1, &cpu) ||
	    !cmdline_parse_long(argv[3], 1, 600000, &ms)) {
		kprintf("error: usage: schedtest nice <cpu> <ms> <nice> [nice...]\n");
		return 1;
	}
	if (!parse_nices(argc, argv, 4, nice))
		return 1;
	return run_fair(argc - 4, ms, nice, 1u << cpu);
}

static int test_wake(int argc, char **argv)
{
	long n, iters, us;
	uint32_t all = TASK_CPUS_ANY;
	unsigned long lost, done;
	uint64_t deadline;

	if (argc != 5 || !cmdline_parse_long(argv[2], 1, MAX_TEST_TASKS, &n) ||
	    !cmdline_parse_long(argv[3], 1, 1000000, &iters) || !cmdline_parse_long(argv[4], 10, 10000000, &us)) {
		kprintf("error: usage: schedtest wake <tasks 1..%d> <iterations> <period_us>\n",
			MAX_TEST_TASKS);
		return 1;
	}
	for (long i = 0; i < n; i++) {
		sleeper_args[i].period_ns = (uint64_t)(us + i * 7) * NSEC_PER_USEC;
		sleeper_args[i].iterations = (uint32_t)iters;
		sleeper_args[i].done = 0;
		test_tasks[i] = task_create("sleeper", sleeper_fn, &sleeper_args[i], 0, all);
		if (!test_tasks[i]) {
			kprintf("error: could not create task %ld\n", i);
			return 1;
		}
	}
	/*
	 * Counted before any join: a sleeper whose wake-up was lost never
	 * ends, so joining it first would hang here and report nothing. The
	 * slowest sleeper needs iters x (us + 7 (n - 1)) us; twice that plus a
	 * second is a deadline no working scheduler misses.
	 */
	deadline = arch_now_ns() + 2 * (uint64_t)iters * (uint64_t)(us + 7 * n) * NSEC_PER_USEC + NSEC_PER_SEC;
	for (;;) {
		done = 0;
		for (long i = 0; i < n; i++)
			done += READ_ONCE(sleeper_args[i].done);
		if (done == (unsigned long)(n * iters) || arch_now_ns() >= deadline)
			break;
		task_sleep_ns(10 * NSEC_PER_MSEC);
	}
	lost = (unsigned long)(n * iters) - done;
	kprintf("wake: tasks=%ld iterations=%lu expected=%lu lost=%lu\n", n, done,
		(unsigned long)(n * iters), lost);
	if (lost)
		return 1;	/* the sleepers that never woke are left as they are */
	for (long i = 0; i < n; i++)
		task_join(test_tasks[i]);
	return 0;
}

static int test_idle(int argc, char **argv)
{
	long ms;
	uint64_t before[CONFIG_NR_CPUS] = { 0 };

	if (argc != 3 || !cmdline_parse_long(argv[2], 1, 600000, &ms)) {
		kprintf("error: usage: schedtest idle <ms>\n");
		return 1;
	}
	for (int cpu = 0; cpu < sched_nr_cpus(); cpu++)
		before[cpu] = cpu_rq(cpu)->ticks;
	task_sleep_ns((uint64_t)ms * NSEC_PER_MSEC);
	for (int cpu = 0; cpu < sched_nr_cpus(); cpu++)
		kprintf("idle: cpu%d ticks=%llu over %ld ms\n", cpu,
			(unsigned long long)(cpu_rq(cpu)->ticks - before[cpu]), ms);
	return 0;
}

/* Spinners pinned to one CPU, moved to another halfway: where did they run? */
static int test_pin(int argc, char **argv)
{
	long n, ms, c1, c2;
	int wrong = 0;

	if (argc != 6 || !cmdline_parse_long(argv[2], 1, MAX_TEST_TASKS, &n) ||
	    !cmdline_parse_long(argv[3], 2, 600000, &ms) || !cmdline_parse_long(argv[4], 0, sched_nr_cpus() - 1, &c1) ||
	    !cmdline_parse_long(argv[5], 0, sched_nr_cpus() - 1, &c2)) {
		kprintf("error: usage: schedtest pin <tasks> <ms> <cpu> <cpu2>\n");
		return 1;
	}
	for (long i = 0; i < n; i++) {
		spin_args[i].until_ns = arch_now_ns() + (uint64_t)ms * NSEC_PER_MSEC;
		test_tasks[i] = task_create("pinned", spin_fn, &spin_args[i], 0, 1u << c1);
		if (!test_tasks[i]) {
			kprintf("error: could not create task %ld\n", i);
			return 1;
		}
	}
	task_sleep_ns((uint64_t)ms * NSEC_PER_MSEC / 2);
	for (long i = 0; i < n; i++) {
		if (test_tasks[i]->cpu != c1)
			wrong++;
		task_set_affinity(test_tasks[i], 1u << c2);
	}
	task_sleep_ns((uint64_t)ms * NSEC_PER_MSEC / 4);
	for (long i = 0; i < n; i++)
		if (test_tasks[i]->cpu != c2)
			wrong++;
	for (long i = 0; i < n; i++)
		task_join(test_tasks[i]);
	kprintf("pin: tasks=%ld first=cpu%ld then=cpu%ld misplaced=%d\n", n, c1, c2, wrong);
	return 0;
}

/* x / PELT_SCALE as "12.34" (percent with two decimals). */
static void pct(char *buf, size_t n, uint32_t ratio)
{
	uint32_t hundredths = (uint32_t)(((uint64_t)ratio * 10000 + PELT_SCALE / 2) / PELT_SCALE);

	ksnprintf(buf, n, "%u.%02u", (unsigned)(hundredths / 100), (unsigned)(hundredths % 100));
}

static void print_avg(const char *what, const struct sched_avg *a, unsigned long weight)
{
	char r[16], u[16];

	pct(r, sizeof(r), pelt_runnable_ratio(a));
	pct(u, sizeof(u), pelt_usage_ratio(a));
	kprintf("%s runnable=%s%% usage=%s%% load=%lu light=%d\n", what, r, u,
		pelt_load_contrib(a, weight), pelt_is_light(a) ? 1 : 0);
}

static void load_task_line(const struct task *t, void *arg)
{
	struct sched_avg a;
	char what[48];

	(void)arg;
	if (t->is_idle || t->state == TASK_EXITED)
		return;
	task_avg_read(t, &a);
	ksnprintf(what, sizeof(what), "load: task %u %-15s cpu=%d", (unsigned)t->tid, t->name, t->cpu);
	print_avg(what, &a, t->se.weight);
}

static int cmd_load(int argc, char **argv)
{
	(void)argv;
	if (argc != 1) {
		kprintf("error: load takes no arguments\n");
		return 1;
	}
	for (int cpu = 0; cpu < sched_nr_cpus(); cpu++) {
		struct sched_avg a;
		char what[48];

		rq_avg_read(cpu, &a);
		ksnprintf(what, sizeof(what), "load: cpu%d nr_running=%u", cpu, cpu_rq(cpu)->nr_running);
		print_avg(what, &a, NICE_0_WEIGHT);
	}
	sched_for_each_task(load_task_line, NULL);
	return 0;
}

struct duty_arg {
	uint64_t period_ns, busy_ns;
	volatile bool stop;
};

/*
 * Busy for busy_ns of every period_ns (virtual time), asleep the rest.
 * Under QEMU icount with several vCPUs busy at once, a clock read can hand
 * the host thread to another vCPU for its whole slice, stretching the busy
 * phase: measure duty cycles with one such task running at a time.
 */
static void duty_fn(void *arg)
{
	struct duty_arg *a = arg;
	uint64_t next = arch_now_ns();

	while (!a->stop) {
		arch_spin_until(next + a->busy_ns);
		next += a->period_ns;
		task_sleep_until(next);
	}
}

static struct duty_arg duty_args[MAX_TEST_TASKS];

/* Periodic tasks of the given duty cycles: what does PELT make of them? */
static int test_duty(int argc, char **argv)
{
	long ms, period_us, duty;
	int n = argc - 4;
	uint32_t all = TASK_CPUS_ANY;

	if (argc < 5 || n > MAX_TEST_TASKS || !cmdline_parse_long(argv[2], 10, 600000, &ms) ||
	    !cmdline_parse_long(argv[3], 100, 1000000, &period_us)) {
		kprintf("error: usage: schedtest duty <ms> <period_us> <duty%%> [duty%%...]\n");
		return 1;
	}
	for (int i = 0; i < n; i++) {
		if (!cmdline_parse_long(argv[4 + i], 0, 100, &duty)) {
			kprintf("error: duty '%s' is not a percentage 0..100\n", argv[4 + i]);
			return 1;
		}
		duty_args[i].period_ns = (uint64_t)period_us * NSEC_PER_USEC;
		duty_args[i].busy_ns = duty_args[i].period_ns * (uint64_t)duty / 100;
		duty_args[i].stop = false;
	}
	for (int i = 0; i < n; i++) {
		test_tasks[i] = task_create("duty", duty_fn, &duty_args[i], 0, all);
		if (!test_tasks[i]) {
			kprintf("error: could not create task %d\n", i);
			while (i--) {
				duty_args[i].stop = true;
				task_join(test_tasks[i]);
			}
			return 1;
		}
	}
	task_sleep_ns((uint64_t)ms * NSEC_PER_MSEC);
	for (int i = 0; i < n; i++) {
		struct sched_avg a;
		char what[48];

		task_avg_read(test_tasks[i], &a);
		ksnprintf(what, sizeof(what), "duty: task %d duty=%s%%", i, argv[4 + i]);
		print_avg(what, &a, test_tasks[i]->se.weight);
	}
	for (int i = 0; i < n; i++)
		duty_args[i].stop = true;
	for (int i = 0; i < n; i++)
		task_join(test_tasks[i]);
	return 0;
}

/*
 * Many small periodic tasks (cyclictest-like: task i has period
 * period_us + 50 us * i, so they do not all wake at once). After a warm-up
 * of a quarter of the run, measure each CPU's busy time and, at the end,
 * where the tasks are.
 */
static int test_light(int argc, char **argv)
{
	long n, ms, busy_us, period_us;
	uint32_t all = TASK_CPUS_ANY;
	uint64_t b0[CONFIG_NR_CPUS] = { 0 }, t0, t1;
	int where[CONFIG_NR_CPUS] = { 0 };

	if (argc != 6 || !cmdline_parse_long(argv[2], 1, MAX_TEST_TASKS, &n) || !cmdline_parse_long(argv[3], 40, 600000, &ms) ||
	    !cmdline_parse_long(argv[4], 1, 1000000, &busy_us) || !cmdline_parse_long(argv[5], 100, 10000000, &period_us) ||
	    busy_us >= period_us) {
		kprintf("error: usage: schedtest light <tasks> <ms> <busy_us> <period_us> (busy < period)\n");
		return 1;
	}
	for (long i = 0; i < n; i++) {
		duty_args[i].period_ns = (uint64_t)(period_us + 50 * i) * NSEC_PER_USEC;
		duty_args[i].busy_ns = (uint64_t)busy_us * NSEC_PER_USEC;
		duty_args[i].stop = false;
		test_tasks[i] = task_create("light", duty_fn, &duty_args[i], 0, all);
		if (!test_tasks[i]) {
			kprintf("error: could not create task %ld\n", i);
			while (i--) {
				duty_args[i].stop = true;
				task_join(test_tasks[i]);
			}
			return 1;
		}
	}
	task_sleep_ns((uint64_t)ms * NSEC_PER_MSEC / 4);
	t0 = arch_now_ns();
	for (int cpu = 0; cpu < sched_nr_cpus(); cpu++)
		b0[cpu] = cpu_busy_ns(cpu, t0);
	task_sleep_ns((uint64_t)ms * NSEC_PER_MSEC * 3 / 4);
	t1 = arch_now_ns();
	for (long i = 0; i < n; i++)
		where[test_tasks[i]->cpu]++;
	for (int cpu = 0; cpu < sched_nr_cpus(); cpu++) {
		uint64_t b = cpu_busy_ns(cpu, t1) - b0[cpu];

		if (!sched_cpu_online_now(cpu))
			continue;
		kprintf("light: cpu%d cluster=%d busy_pct=%llu.%02llu tasks=%d\n", cpu, sched_topo.cpu[cpu].cluster,
			(unsigned long long)(b * 100 / (t1 - t0)),
			(unsigned long long)(b * 10000 / (t1 - t0) % 100), where[cpu]);
	}
	for (long i = 0; i < n; i++)
		duty_args[i].stop = true;
	for (long i = 0; i < n; i++)
		task_join(test_tasks[i]);
	kprintf("light: tasks=%ld pack=%s window_us=%llu\n", n, pack_policy_current()->name,
		(unsigned long long)((t1 - t0) / 1000));
	return 0;
}

static int cmd_schedcheck(int argc, char **argv)
{
	(void)argv;
	if (argc != 1) {
		kprintf("error: schedcheck takes no arguments\n");
		return 1;
	}
	kprintf("schedcheck: ok, %d tasks, every one in exactly one place\n", sched_check_invariants());
	return 0;
}

static int cmd_schedtest(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "fair") == 0)
		return test_fair(argc, argv);
	if (argc >= 2 && strcmp(argv[1], "wake") == 0)
		return test_wake(argc, argv);
	if (argc >= 2 && strcmp(argv[1], "idle") == 0)
		return test_idle(argc, argv);
	if (argc >= 2 && strcmp(argv[1], "pin") == 0)
		return test_pin(argc, argv);
	if (argc >= 2 && strcmp(argv[1], "nice") == 0)
		return test_nice(argc, argv);
	if (argc >= 2 && strcmp(argv[1], "duty") == 0)
		return test_duty(argc, argv);
	if (argc >= 2 && strcmp(argv[1], "light") == 0)
		return test_light(argc, argv);
	kprintf("error: usage: schedtest fair|nice|wake|idle|pin|duty|light ...\n");
	return 1;
}

static int cmd_spawn(int argc, char **argv)
{
	long n, ms, nice = 0;
	static struct spin_arg bg[32];
	static int next;
	uint32_t all = TASK_CPUS_ANY;

	if (argc < 3 || argc > 4 || !cmdline_parse_long(argv[1], 1, 32, &n) ||
	    !cmdline_parse_long(argv[2], 1, 600000, &ms) ||
	    (argc == 4 && !cmdline_parse_long(argv[3], NICE_MIN, NICE_MAX, &nice))) {
		kprintf("error: usage: spawn <tasks 1..32> <ms> [nice]  (CPU-bound, in the background)\n");
		return 1;
	}
	for (long i = 0; i < n; i++) {
		/* Slots are reused round-robin; a slot still in use is skipped over by ms only. */
		struct spin_arg *a = &bg[next++ % 32];
		struct task *t;

		a->until_ns = arch_now_ns() + (uint64_t)ms * NSEC_PER_MSEC;
		t = task_create("spawned", spin_fn, a, (int)nice, all);
		if (!t) {
			kprintf("error: could not create task %ld\n", i);
			return 1;
		}
		task_detach(t);
	}
	return 0;
}

static int cmd_sleep(int argc, char **argv)
{
	long ms;

	if (argc != 2 || !cmdline_parse_long(argv[1], 0, 3600000, &ms)) {
		kprintf("error: usage: sleep <ms 0..3600000>\n");
		return 1;
	}
	task_sleep_ns((uint64_t)ms * NSEC_PER_MSEC);
	return 0;
}

static const struct shell_cmd commands[] = {
	{ "sleep", "<ms>", "let the console sleep (scripts: wait while jobs run)", cmd_sleep },
	{ "ps", "", "tasks: state, cpu, class, RT priority, nice, vruntime, runtime", cmd_ps },
	{ "top", "[rounds]", "per-CPU load, refreshed in place every 0.5 s", cmd_top },
	{ "spawn", "<tasks> <ms>", "start CPU-bound tasks in the background", cmd_spawn },
	{ "schedtest", "fair|nice|wake|idle|pin|duty|light ...", "built-in scheduler checks", cmd_schedtest },
	{ "load", "", "PELT: runnable %, usage % and load per CPU and task", cmd_load },
	{ "schedcheck", "", "check that every task is in exactly one place", cmd_schedcheck },
};

SHELL_COMMANDS(commands);
