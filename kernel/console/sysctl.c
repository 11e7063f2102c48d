/*
 * `sysctl [NAME[=VALUE] ...]` (docs/interfaces.md): the real-time class's
 * tunables under Linux's names and units (Documentation/scheduler/
 * sched-rt-group.rst, sched(7)):
 *   kernel.sched_rt_period_us    the throttling period, 1 s
 *   kernel.sched_rt_runtime_us   RT time per period and CPU, 950 ms; -1: no limit
 *   kernel.sched_rr_timeslice_ms SCHED_RR's slice, 100 ms (<= 0 restores it)
 * Without arguments every one is printed, `name = value` as sysctl -a. A
 * bad name or value: one `error: sysctl: ...` line, nothing changes.
 */
#include <stdlib.h>
#include <string.h>

#include "kernel/console/shell.h"
#include "kernel/lib/printk.h"
#include "kernel/sched/sched.h"

#define RR_TIMESLICE_DEFAULT_MS 100

static long long get_period(void)
{
	return (long long)(sched_rt_period_ns / NSEC_PER_USEC);
}

static long long get_runtime(void)
{
	return sched_rt_runtime_ns < 0 ? -1 : sched_rt_runtime_ns / (long long)NSEC_PER_USEC;
}

static long long get_timeslice(void)
{
	return (long long)(sched_rr_timeslice_ns / NSEC_PER_MSEC);
}

/* Linux's rules: a period of at least 1 us, a runtime of -1 or within the period. */
static const char *set_period(long long v)
{
	if (v < 1 || v > 0x7fffffffLL)
		return "must be 1..2147483647 us";
	if (sched_rt_runtime_ns >= 0 && (uint64_t)sched_rt_runtime_ns > (uint64_t)v * NSEC_PER_USEC)
		return "shorter than kernel.sched_rt_runtime_us";
	sched_rt_period_ns = (uint64_t)v * NSEC_PER_USEC;
	return NULL;
}

static const char *set_runtime(long long v)
{
	if (v == -1) {
		sched_rt_runtime_ns = -1;
		return NULL;
	}
	if (v < 0 || (uint64_t)v * NSEC_PER_USEC > sched_rt_period_ns)
		return "must be -1 or 0..kernel.sched_rt_period_us";
	sched_rt_runtime_ns = v * (long long)NSEC_PER_USEC;
	return NULL;
}

static const char *set_timeslice(long long v)
{
	if (v > 0x7fffffffLL)
		return "too large";
	sched_rr_timeslice_ns = (uint64_t)(v <= 0 ? RR_TIMESLICE_DEFAULT_MS : v) * NSEC_PER_MSEC;
	return NULL;
}

static const struct knob {
	const char *name;
	long long (*get)(void);
	const char *(*set)(long long v);
} knobs[] = {
	{ "kernel.sched_rr_timeslice_ms", get_timeslice, set_timeslice },
	{ "kernel.sched_rt_period_us", get_period, set_period },
	{ "kernel.sched_rt_runtime_us", get_runtime, set_runtime },
};

static const struct knob *find_knob(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++)
		if (strlen(knobs[i].name) == len && !strncmp(knobs[i].name, name, len))
			return &knobs[i];
	return NULL;
}

static void show(const struct knob *k)
{
	kprintf("%s = %lld\n", k->name, k->get());
}

/* One NAME or NAME=VALUE; false after printing the error. */
static bool one(const char *arg)
{
	const char *eq = strchr(arg, '=');
	const struct knob *k = find_knob(arg, eq ? (size_t)(eq - arg) : strlen(arg));
	const char *why;
	char *end;
	long long v;

	if (!k) {
		kprintf("error: sysctl: unknown name '%.*s' (kernel.sched_rt_period_us, kernel.sched_rt_runtime_us, "
			"kernel.sched_rr_timeslice_ms)\n", eq ? (int)(eq - arg) : (int)strlen(arg), arg);
		return false;
	}
	if (!eq) {
		show(k);
		return true;
	}
	v = strtoll(eq + 1, &end, 10);
	if (!eq[1] || *end) {
		kprintf("error: sysctl: %s: '%s' is not a number\n", k->name, eq + 1);
		return false;
	}
	why = k->set(v);
	if (why) {
		kprintf("error: sysctl: %s=%lld: %s\n", k->name, v, why);
		return false;
	}
	show(k);
	return true;
}

static int cmd_sysctl(int argc, char **argv)
{
	if (argc == 1 || (argc == 2 && !strcmp(argv[1], "-a"))) {
		for (size_t i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++)
			show(&knobs[i]);
		return 0;
	}
	for (int i = 1; i < argc; i++)
		if (!one(argv[i]))
			return 1;
	return 0;
}

static const struct shell_cmd commands[] = {
	{ "sysctl", "[name[=value] ...]", "the real-time class's tunables, under Linux's names", cmd_sysctl },
};

SHELL_COMMANDS(commands);
