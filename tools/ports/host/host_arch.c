/*
 * The host port: the arch interface (include/arch/) for host programs, so
 * host tests and tools link the very same kernel/ objects as the ARM build.
 * Every function include/arch declares for the kernel has its host version
 * here (and only here).
 * One CPU id per thread (host_set_cpu_id), a clock that moves only when the
 * program sets host_fake_now, no timer hardware, no IPIs (a program that
 * needs them drives the scheduler's entry points itself), WFI-only power,
 * no energy meters, console output to stdout and panics that abort.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "arch/console.h"
#include "arch/context.h"
#include "arch/cost.h"
#include "arch/cpu.h"
#include "arch/energy_meter.h"
#include "arch/ipi.h"
#include "arch/machine.h"
#include "arch/mm.h"
#include "arch/power.h"
#include "arch/timer.h"
#include "kernel/lib/panic.h"
#include "kernel/sched/sched.h"
#include "kernel/sched/topology.h"
#include "tools/ports/host/host_arch.h"

/* ------------------------------------------------------------ console, panic */

void arch_panic(const char *msg)
{
	fflush(stdout);
	fprintf(stderr, "panic: %s\n", msg);
	abort();
}

void arch_panic_plain(const char *msg)
{
	arch_panic(msg);
}

void arch_console_write(const char *buf, size_t len)
{
	fwrite(buf, 1, len, stdout);
}

/* What `cpus` and `uptime` ask the port (include/arch/machine.h): the topology host programs built. */
void arch_cpu_describe(int cpu, struct arch_cpu_desc *d)
{
	d->hwid = cpu < sched_topo.nr_cpus ? sched_topo.cpu[cpu].hwid : (uint32_t)cpu;
	d->state = sched_cpu_online_now(cpu) ? "online" : "offline";
	d->compatible = cpu < sched_topo.nr_cpus && sched_topo.cpu[cpu].compatible ? sched_topo.cpu[cpu].compatible
										     : "host";
}

uint64_t arch_boot_ns(void)
{
	return 0;
}

/* ------------------------------------------------------------ CPU identity */

static _Thread_local int host_cpu;

int arch_cpu_id(void)
{
	return host_cpu;
}

void host_set_cpu_id(int cpu)
{
	host_cpu = cpu;
}

/* No interrupts on the host port: masking them is a no-op. */
unsigned long arch_irq_save(void)
{
	return 0;
}

void arch_irq_restore(unsigned long flags)
{
	(void)flags;
}

void arch_irq_enable(void)
{
}

/* ------------------------------------------------------------ tasks, costs */

/* A context that would start @entry: host programs drive the scheduler without switching. */
void arch_context_init(struct arch_context *ctx, void *stack_top, void (*entry)(void))
{
	(void)entry;
	ctx->sp = stack_top;
}

void arch_context_switch(struct arch_context *prev, struct arch_context *next)
{
	(void)prev;
	(void)next;
	panic("host port: no context switch (tools/schedsim runs tasks)");
}

/* The code runs on the host CPU: nothing to charge, the work is done. */
void arch_cost(enum arch_cost_kind what)
{
	(void)what;
}

uint64_t arch_work(arch_work_fn fn, arch_work_fn cost_ns, uint64_t arg)
{
	(void)cost_ns;
	return fn(arg);
}

/* The host clock moves when the program says: a spin moves it to its end. */
void arch_spin_until(uint64_t deadline_ns)
{
	if (host_fake_now < deadline_ns)
		host_fake_now = deadline_ns;
}

/* ------------------------------------------------------------ clock, timer, IPI */

uint64_t host_fake_now = 1000000000ull;

uint64_t arch_now_ns(void)
{
	return host_fake_now;
}

void arch_timer_program(uint64_t deadline_ns)
{
	(void)deadline_ns;
}

bool arch_timer_read_hw(struct arch_timer_hw *hw)
{
	(void)hw;
	return false;
}

void arch_send_reschedule(int cpu)
{
	(void)cpu;
}

/* ------------------------------------------------------------ memory: no protection */

void arch_guard_page(uintptr_t addr)
{
	(void)addr;
}

/* ------------------------------------------------------------ power: WFI only (the rest: no_power.c) */

void platform_cpu_power_down(int cpu, int rail, bool domain, bool last_man)
{
	(void)cpu;
	(void)rail;
	(void)domain;
	(void)last_man;
}

const char *platform_power_name(void)
{
	return "host";
}
