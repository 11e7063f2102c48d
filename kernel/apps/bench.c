/*
 * In-kernel benchmarks with the semantics of the tools the seeds used
 * (docs/platform.md), each ending with its RESULT line
 * (docs/interfaces.md):
 *
 *   cyclictest [-t N] [-i us] [-d us] [-D time] [-e us] [-p prio] [--policy=fifo|rr|other] [-q]
 *	thread i wakes every i_us + i * d_us on an absolute timer; latency =
 *	wake time - programmed expiry; one rt-tests-style line per thread.
 *	-p: SCHED_FIFO (or --policy's), thread i at prio - i, not below 1,
 *	as rt-tests gives without -S.
 *	-D takes seconds ("20") or "500ms"; -e us sets the idle exit-latency
 *	limit for the run (cyclictest -e writes /dev/cpu_dma_latency).
 *   sysbench [--test=cpu] [--num-threads=N] [--max-requests=R] [--cpu-max-prime=P]
 *	each request tests every number 3..P-1 for primality by trial
 *	division up to its square root; prints the total time.
 *
 * Runs are independent (instances from a small pool), so two can run at
 * once with the shell's "&".
 */
#include <math.h>
#include <string.h>

#include "arch/barrier.h"
#include "arch/cost.h"
#include "arch/cpu.h"
#include "kernel/lib/cmdline.h"
#include "kernel/sched/energy.h"
#include "kernel/lib/format.h"
#include "kernel/lib/printk.h"
#include "kernel/apps/result.h"
#include "kernel/sched/sched.h"
#include "kernel/console/shell.h"
#include "kernel/time/time.h"
#include "kernel/sched/topology.h"

#define BENCH_MAX_THREADS 64
#define BENCH_INSTANCES 4

/* "20" (s), "500ms", "2s". */
static bool parse_duration_us(const char *s, uint64_t *us)
{
	char num[24];
	size_t n = s ? strlen(s) : 0;
	unsigned long v, mult = 1000000;

	if (n == 0 || n >= sizeof(num))
		return false;
	memcpy(num, s, n + 1);
	if (n > 2 && strcmp(num + n - 2, "ms") == 0) {
		num[n - 2] = '\0';
		mult = 1000;
	} else if (n > 1 && num[n - 1] == 's') {
		num[n - 1] = '\0';
	}
	if (!cmdline_parse_ulong(num, 1, 3600000, &v))
		return false;
	*us = (uint64_t)v * mult;
	return *us <= 3600ull * 1000000;
}

/* "RESULT bench=<b> board=<board> pack=<mode> " + @fields + energy fields, one write. */
static void print_result(const char *bench, const char *fields, const struct energy_snapshot *from)
{
	static char line[1024];	/* one RESULT at a time: under the lock */
	static spinlock_t lock = SPINLOCK_INIT;
	struct energy_snapshot to;
	unsigned long flags;
	int n;

	energy_take_snapshot(&to);
	flags = spin_lock_irqsave(&lock);
	n = result_begin(line, sizeof(line), bench);
	if (n < (int)sizeof(line))
		n += ksnprintf(line + n, sizeof(line) - (size_t)n, "%s ", fields);
	if (n < (int)sizeof(line))
		energy_result_fields(line + n, sizeof(line) - (size_t)n, from, &to);
	spin_unlock_irqrestore(&lock, flags);
	kprintf("%s\n", line);
}

/* ------------------------------------------------------------ instances */

struct cyc_thread {
	struct task *task;
	uint64_t interval_ns, end_ns;
	uint64_t count, min_ns, max_ns, sum_ns, act_ns;
	int prio;	/* its RT priority, 0 for SCHED_OTHER */
};

struct sys_thread {
	struct task *task;
};

struct bench {
	bool used;
	/* cyclictest */
	struct cyc_thread cyc[BENCH_MAX_THREADS];
	/* sysbench */
	struct sys_thread sys[BENCH_MAX_THREADS];
	unsigned long requests, max_prime;
	volatile unsigned long next_request;
	volatile unsigned long primes_seen;
};

static struct bench benches[BENCH_INSTANCES];
static spinlock_t bench_lock = SPINLOCK_INIT;

static struct bench *bench_get(void)
{
	unsigned long flags = spin_lock_irqsave(&bench_lock);
	struct bench *b = NULL;

	for (int i = 0; i < BENCH_INSTANCES && !b; i++)
		if (!benches[i].used) {
			b = &benches[i];
			memset(b, 0, sizeof(*b));
			b->used = true;
		}
	spin_unlock_irqrestore(&bench_lock, flags);
	if (!b)
		kprintf("error: %d benchmarks already running\n", BENCH_INSTANCES);
	return b;
}

static void bench_put(struct bench *b)
{
	WRITE_ONCE(b->used, false);
}

/* ------------------------------------------------------------ cyclictest */

static void cyclic_fn(void *arg)
{
	struct cyc_thread *t = arg;
	uint64_t next = arch_now_ns() + t->interval_ns;

	t->min_ns = UINT64_MAX;
	while (next <= t->end_ns) {
		uint64_t now, lat;

		task_sleep_until(next);
		now = arch_now_ns();
		lat = now > next ? now - next : 0;
		t->act_ns = lat;
		t->count++;
		t->sum_ns += lat;
		if (lat < t->min_ns)
			t->min_ns = lat;
		if (lat > t->max_ns)
			t->max_ns = lat;
		next += t->interval_ns;
		/* Overran whole periods (cyclictest counts from the programmed grid). */
		while (next < now)
			next += t->interval_ns;
	}
}

static int cmd_cyclictest(int argc, char **argv)
{
	unsigned long threads = 1, interval = 1000, distance = 500, dma_lat = 0;
	uint64_t duration_us = 0, old_limit = idle_latency_limit_ns;
	uint64_t min = UINT64_MAX, max = 0, sum = 0, count = 0, start;
	bool set_latency = false, policy_given = false;
	unsigned long prio = 0;
	int policy = SCHED_OTHER;
	struct task *self = current_task();
	int saved_spawn_policy = self->spawn_policy, saved_spawn_prio = self->spawn_prio;
	struct energy_snapshot from;
	struct bench *b;
	char fields[256];

	for (int i = 1; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		bool ok = true;

		if (strcmp(o, "-q") == 0)
			continue;
		if (strncmp(o, "--policy=", 9) == 0) {
			policy_given = true;
			if (strcmp(o + 9, "fifo") == 0)
				policy = SCHED_FIFO;
			else if (strcmp(o + 9, "rr") == 0)
				policy = SCHED_RR;
			else if (strcmp(o + 9, "other") == 0)
				policy = SCHED_OTHER;
			else {
				kprintf("error: cyclictest: unknown policy '%s' (fifo, rr, other)\n", o + 9);
				return 1;
			}
			continue;
		}
		if (strcmp(o, "-p") == 0)
			ok = cmdline_parse_ulong(v, 0, RT_PRIO_MAX, &prio);
		else if (strcmp(o, "-t") == 0)
			ok = cmdline_parse_ulong(v, 1, BENCH_MAX_THREADS, &threads);
		else if (strcmp(o, "-i") == 0)
			ok = cmdline_parse_ulong(v, 100, 10000000, &interval);
		else if (strcmp(o, "-d") == 0)
			ok = cmdline_parse_ulong(v, 0, 10000000, &distance);
		else if (strcmp(o, "-D") == 0)
			ok = parse_duration_us(v, &duration_us);
		else if (strcmp(o, "-e") == 0)
			ok = set_latency = cmdline_parse_ulong(v, 0, 10000000, &dma_lat);
		else {
			kprintf("error: cyclictest: unknown option '%s' (supported: -t -i -d -D -e -p --policy -q)\n", o);
			return 1;
		}
		if (!ok) {
			kprintf("error: cyclictest: bad or missing value for %s\n", o);
			return 1;
		}
		i++;
	}
	if (duration_us == 0) {
		kprintf("error: cyclictest: -D <duration> is required (seconds, or e.g. 500ms)\n");
		return 1;
	}
	/* rt-tests: -p alone means SCHED_FIFO; an RT policy needs a priority, SCHED_OTHER has none. */
	if (!policy_given && prio > 0)
		policy = SCHED_FIFO;
	if (policy != SCHED_OTHER && prio == 0) {
		kprintf("error: cyclictest: --policy=%s needs -p 1..99\n", policy == SCHED_RR ? "rr" : "fifo");
		return 1;
	}
	if (policy == SCHED_OTHER && prio > 0) {
		kprintf("error: cyclictest: --policy=other takes no -p priority (got %lu)\n", prio);
		return 1;
	}
	b = bench_get();
	if (!b)
		return 1;
	if (set_latency)
		idle_set_latency_limit((uint64_t)dma_lat * 1000);
	energy_take_snapshot(&from);
	start = arch_now_ns();
	for (unsigned long i = 0; i < threads; i++) {
		struct cyc_thread *t = &b->cyc[i];

		t->interval_ns = (uint64_t)(interval + i * distance) * NSEC_PER_USEC;
		t->end_ns = start + duration_us * NSEC_PER_USEC;
		t->prio = policy == SCHED_OTHER ? 0 : (prio > i ? (int)(prio - i) : 1);
		/* Created with its policy, so its class places it (an RT thread goes to the lowest-priority CPU). */
		task_set_spawn_policy(policy, t->prio);
		t->task = task_create("cyclictest", cyclic_fn, t, 0, TASK_CPUS_ANY);
		task_set_spawn_policy(saved_spawn_policy, saved_spawn_prio);
		if (!t->task) {
			kprintf("error: cyclictest: no task slot for thread %lu\n", i);
			threads = i;
			break;
		}
	}
	for (unsigned long i = 0; i < threads; i++)
		task_join(b->cyc[i].task);
	if (set_latency)
		idle_set_latency_limit(old_limit);
	for (unsigned long i = 0; i < threads; i++) {
		const struct cyc_thread *t = &b->cyc[i];
		uint64_t avg = t->count ? t->sum_ns / t->count : 0;

		kprintf("T:%2lu (%5u) P:%2d I:%llu C:%7llu Min:%7llu Act:%5llu Avg:%5llu Max:%7llu\n", i,
			(unsigned)t->task->tid, t->prio, (unsigned long long)(t->interval_ns / 1000),
			(unsigned long long)t->count, (unsigned long long)(t->count ? t->min_ns / 1000 : 0),
			(unsigned long long)(t->act_ns / 1000), (unsigned long long)(avg / 1000),
			(unsigned long long)(t->max_ns / 1000));
		if (t->count && t->min_ns < min)
			min = t->min_ns;
		if (t->max_ns > max)
			max = t->max_ns;
		sum += t->sum_ns;
		count += t->count;
	}
	ksnprintf(fields, sizeof(fields),
		  "threads=%lu duration_us=%llu lat_min_us=%llu lat_avg_us=%llu lat_max_us=%llu policy=%s prio=%lu",
		  threads, (unsigned long long)duration_us, (unsigned long long)(count ? min / 1000 : 0),
		  (unsigned long long)(count ? sum / count / 1000 : 0), (unsigned long long)(max / 1000),
		  policy == SCHED_FIFO ? "fifo" : policy == SCHED_RR ? "rr" : "other", prio);
	print_result("cyclictest", fields, &from);
	bench_put(b);
	return 0;
}

/* ------------------------------------------------------------ sysbench */

/* sysbench 0.4's cpu test: count the primes below max_prime by trial division. */
static uint64_t primes_below(uint64_t max_prime)
{
	unsigned long n = 0;

	for (unsigned long c = 3; c < max_prime; c++) {
		unsigned long t = (unsigned long)sqrt((double)c), l;

		for (l = 2; l <= t; l++)
			if (c % l == 0)
				break;
		if (l > t)
			n++;
	}
	return n;
}

/*
 * What one request costs at capacity 1024, for ports that charge time
 * instead of running the loop (include/arch/cost.h), from its trial
 * divisions, in instructions as QEMU icount counts this very code
 * (docs/schedsim.md): a Cortex-A9 has no divide instruction (a library
 * call: 67.6 per division at max_prime 10000, 8.02 ms a request; 20% less
 * at 2000); A15/A7 divide in hardware (7 per division + 9 per candidate:
 * 0.919 ms at 10000, 0.114 ms at 2000, both as measured). Only a port that
 * models time asks; the count is remembered for the last max_prime.
 */
static uint64_t request_cost_ns(uint64_t max_prime)
{
	static uint64_t cached_prime, cached_divisions;
	static spinlock_t lock = SPINLOCK_INIT;
	const char *cpu = sched_topo.cpu[arch_cpu_id()].compatible;
	uint64_t divisions = 0;
	unsigned long flags = spin_lock_irqsave(&lock);

	if (cached_prime == max_prime) {
		divisions = cached_divisions;
	} else {
		for (uint64_t c = 3; c < max_prime; c++) {
			uint64_t t = (uint64_t)sqrt((double)c), l;

			for (l = 2; l <= t && c % l != 0; l++)
				;
			divisions += l - 1;
		}
		cached_prime = max_prime;
		cached_divisions = divisions;
	}
	spin_unlock_irqrestore(&lock, flags);
	if (cpu && strcmp(cpu, "arm,cortex-a9") == 0)
		return divisions * 676 / 10;
	return divisions * 7 + (max_prime - 3) * 9;
}

static void sysbench_fn(void *arg)
{
	struct bench *b = arg;

	for (;;) {
		unsigned long r = __atomic_fetch_add(&b->next_request, 1, __ATOMIC_RELAXED);

		if (r >= b->requests)
			break;
		__atomic_fetch_add(&b->primes_seen,
				   arch_work(primes_below, request_cost_ns, b->max_prime),
				   __ATOMIC_RELAXED);
	}
}

static int cmd_sysbench(int argc, char **argv)
{
	unsigned long threads = 1, requests = 10000, max_prime = 10000;
	struct energy_snapshot from;
	uint64_t start, elapsed;
	struct bench *b;
	char fields[160];

	for (int i = 1; i < argc; i++) {
		const char *o = argv[i];
		bool ok = true;

		if (strcmp(o, "--test=cpu") == 0 || strcmp(o, "run") == 0)
			continue;
		if (strncmp(o, "--num-threads=", 14) == 0)
			ok = cmdline_parse_ulong(o + 14, 1, BENCH_MAX_THREADS, &threads);
		else if (strncmp(o, "--max-requests=", 15) == 0)
			ok = cmdline_parse_ulong(o + 15, 1, 100000000, &requests);
		else if (strncmp(o, "--cpu-max-prime=", 16) == 0)
			ok = cmdline_parse_ulong(o + 16, 3, 100000000, &max_prime);
		else {
			kprintf("error: sysbench: unknown option '%s' (supported: --test=cpu --num-threads= "
				"--max-requests= --cpu-max-prime=)\n", o);
			return 1;
		}
		if (!ok) {
			kprintf("error: sysbench: bad value in '%s'\n", o);
			return 1;
		}
	}
	b = bench_get();
	if (!b)
		return 1;
	b->requests = requests;
	b->max_prime = max_prime;
	energy_take_snapshot(&from);
	start = arch_now_ns();
	for (unsigned long i = 0; i < threads; i++) {
		b->sys[i].task = task_create("sysbench", sysbench_fn, b, 0, TASK_CPUS_ANY);
		if (!b->sys[i].task) {
			kprintf("error: sysbench: no task slot for thread %lu\n", i);
			threads = i;
			break;
		}
	}
	for (unsigned long i = 0; i < threads; i++)
		task_join(b->sys[i].task);
	elapsed = arch_now_ns() - start;
	kprintf("sysbench: threads=%lu requests=%lu primes_per_request=%lu\n", threads, requests,
		requests ? b->primes_seen / requests : 0);
	kprintf("    total time:                          %llu.%04llus\n",
		(unsigned long long)(elapsed / NSEC_PER_SEC),
		(unsigned long long)(elapsed % NSEC_PER_SEC / 100000));
	ksnprintf(fields, sizeof(fields), "threads=%lu requests=%lu time_us=%llu", threads, requests,
		  (unsigned long long)(elapsed / 1000));
	print_result("sysbench", fields, &from);
	bench_put(b);
	return 0;
}

static const struct shell_cmd commands[] = {
	{ "cyclictest", "[-t N] [-i us] [-d us] -D time [-e us] [-q]", "timer wake-up latency (rt-tests)",
	  cmd_cyclictest },
	{ "sysbench", "[--test=cpu] [--num-threads=N] [--max-requests=R] [--cpu-max-prime=P]",
	  "CPU benchmark: primes by trial division", cmd_sysbench },
};

SHELL_COMMANDS(commands);
