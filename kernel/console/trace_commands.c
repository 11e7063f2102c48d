/*
 * `trace start|stop|clear|dump|stats`: the scheduler's event trace
 * (kernel/trace/trace.c) from the console, dumped as ftrace text.
 */
#include <string.h>

#include "arch/barrier.h"
#include "kernel/lib/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/console/shell.h"
#include "kernel/trace/trace.h"

static int cmd_trace(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "start") == 0) {
		trace_quiesce();
		trace_clear();
		smp_mb();
		trace_set(true);
		trace_start_counters();
		kprintf("trace: on (%d events per CPU)\n", TRACE_EVENTS_PER_CPU);
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "stop") == 0) {
		trace_set(false);
		trace_stop_counters();
		kprintf("trace: off\n");
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "clear") == 0) {
		bool was = trace_quiesce();

		trace_clear();
		trace_set(was);
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "dump") == 0) {
		bool was = trace_quiesce();	/* writers must be quiet while the buffers are read */

		trace_dump();
		trace_set(was);
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "stats") == 0) {
		for (int c = 0; c < sched_nr_cpus(); c++) {
			uint32_t written, lost;

			trace_stats(c, &written, &lost);
			kprintf("trace: cpu%d written=%u overwritten=%u\n", c, (unsigned)written, (unsigned)lost);
		}
		return 0;
	}
	kprintf("error: usage: trace start|stop|clear|dump|stats\n");
	return 1;
}

static const struct shell_cmd commands[] = {
	{ "trace", "start|stop|clear|dump|stats", "scheduler event trace (ftrace text format)", cmd_trace },
};

SHELL_COMMANDS(commands);
