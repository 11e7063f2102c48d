/*
 * The console commands of the portable kernel, registered together so that
 * every engine (the ARM port, the simulator) offers the same set; a port
 * adds its own (cpus, crash, microbench ...) beside them.
 */
#include "kernel/energy.h"
#include "kernel/rtapp.h"
#include "kernel/sched.h"
#include "kernel/shell.h"
#include "kernel/trace.h"

void kernel_commands_register(void)
{
	sched_commands_register();
	pack_commands_register();
	energy_commands_register();
	bench_commands_register();
	jobs_register();
	taskset_register();
	trace_commands_register();
	rtapp_commands_register();
}
