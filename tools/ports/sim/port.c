/*
 * The simulator's port of the arch interface (include/arch/): what the ARM
 * port does with hardware, done on the simulated machine of engine.c.
 * Time: arch_now_ns() is the running CPU's clock; the kernel's costs
 * (arch_cost(), context switches, interrupts) and tasks' work (arch_work())
 * advance it. Power: idle is a WFI that waits for the CPU's next event; the
 * cluster hooks have nothing to do (the kernel accounts the rails' states).
 * No energy meters: energy comes from the DT's model, as under QEMU.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/mman.h>

#include "arch/machine.h"
#include "arch/console.h"
#include "arch/context.h"
#include "arch/cost.h"
#include "arch/cpu.h"
#include "arch/energy_meter.h"
#include "arch/ipi.h"
#include "arch/mm.h"
#include "arch/power.h"
#include "arch/timer.h"
#include "kernel/lib/format.h"
#include "tools/ports/sim/sim.h"
#include "kernel/lib/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/sched/topology.h"

/* ------------------------------------------------------------ CPU, interrupts */

int arch_cpu_id(void)
{
	return sim_cur->id;
}

unsigned long arch_irq_save(void)
{
	bool was = sim_cur->irq_masked;

	sim_cur->irq_masked = true;
	return was;
}

void arch_irq_restore(unsigned long flags)
{
	sim_cur->irq_masked = flags != 0;
	if (!flags)
		sim_deliver_irqs();
}

void arch_irq_enable(void)
{
	sim_cur->irq_masked = false;
	sim_deliver_irqs();
}

/* ------------------------------------------------------------ clock, timer, IPI */

uint64_t arch_now_ns(void)
{
	return sim_cur->now;
}

void arch_timer_program(uint64_t deadline_ns)
{
	sim_set_timer(deadline_ns);
}

/* The simulated timer cannot lose its deadline: nothing to compare. */
bool arch_timer_read_hw(struct arch_timer_hw *hw)
{
	(void)hw;
	return false;
}

void arch_send_reschedule(int cpu)
{
	sim_send_ipi(cpu);
}

/* ------------------------------------------------------------ tasks and time */

void arch_context_init(struct arch_context *ctx, void *stack_top, void (*entry)(void))
{
	ctx->sp = sim_stack_init(stack_top, entry);
}

void arch_context_switch(struct arch_context *prev, struct arch_context *next)
{
	sim_charge(CH_SWITCH, sim_cfg.switch_ns);
	sim_switch(&prev->sp, next->sp);
}

void arch_cost(enum arch_cost_kind what)
{
	sim_charge((enum sim_charge_kind)what, sim_cfg.cost_ns[what]);
}

/*
 * A task's computation: the CPU is busy for its cost, and the value is
 * fn(arg). fn is pure (include/arch/cost.h), so the last few values are
 * remembered: sysbench asks the same question thousands of times.
 */
#define MEMO 8
static struct {
	arch_work_fn fn;
	uint64_t arg, value;
	bool used;
} memo[MEMO];
static unsigned int memo_next;

uint64_t arch_work(arch_work_fn fn, arch_work_fn cost_ns, uint64_t arg)
{
	uint64_t value = 0;
	bool found = false;

	sim_compute(cost_ns(arg));
	for (int i = 0; i < MEMO && !found; i++)
		if (memo[i].used && memo[i].fn == fn && memo[i].arg == arg) {
			value = memo[i].value;
			found = true;
		}
	if (!found) {
		value = fn(arg);
		memo[memo_next].fn = fn;
		memo[memo_next].arg = arg;
		memo[memo_next].value = value;
		memo[memo_next].used = true;
		memo_next = (memo_next + 1) % MEMO;
	}
	return value;
}

void arch_spin_until(uint64_t deadline_ns)
{
	sim_busy_until(deadline_ns);
}

/*
 * A task stack's guard page: no access, as the ARM MMU leaves it, so an
 * overflow faults at once instead of corrupting what lies below.
 */
void arch_guard_page(uintptr_t addr)
{
	if (mprotect((void *)addr, 4096, PROT_NONE) != 0) {
		fprintf(stderr, "schedsim: error: guard page at %#lx: mprotect failed\n", (unsigned long)addr);
		exit(1);
	}
}

/* ------------------------------------------------------------ power (the rest: tools/ports/host/no_power.c) */

void platform_cpu_power_down(int cpu, int rail, bool domain, bool last_man)
{
	(void)cpu;
	(void)rail;
	(void)domain;
	(void)last_man;
	sim_wfi();
}

const char *platform_power_name(void)
{
	return "sim";
}

/* ------------------------------------------------------------ console, panic */

static FILE *out;

void sim_set_output(void *file)
{
	fflush(out ? out : stdout);
	out = file;
}

void sim_console_write(const char *buf, unsigned long len)
{
	fwrite(buf, 1, len, out ? out : stdout);
}

void sim_console_flush(void)
{
	fflush(out ? out : stdout);
}

void arch_console_write(const char *buf, size_t len)
{
	sim_console_write(buf, len);
}

static __attribute__((noreturn)) void sim_panic(const char *msg, bool with_cpu)
{
	if (with_cpu)
		kprintf("panic: cpu%d: %s\n", sim_cur ? sim_cur->id : 0, msg);
	else
		kprintf("panic: %s\n", msg);
	sim_set_output(NULL);
	sim_console_flush();
	fprintf(stderr, "schedsim: error: kernel panic at %llu ns on cpu%d: %s\n",
		(unsigned long long)(sim_cur ? sim_cur->now : 0), sim_cur ? sim_cur->id : 0, msg);
	exit(3);
}

void arch_panic(const char *msg)
{
	sim_panic(msg, true);
}

void arch_panic_plain(const char *msg)
{
	sim_panic(msg, false);
}

/* What `cpus` and `uptime` ask the port (include/arch/machine.h). */
void arch_cpu_describe(int cpu, struct arch_cpu_desc *d)
{
	d->hwid = sched_topo.cpu[cpu].hwid;
	d->state = sched_cpu_online_now(cpu) ? "online" : "offline";
	d->compatible = sched_topo.cpu[cpu].compatible;
}

uint64_t arch_boot_ns(void)
{
	return 0;	/* the machine starts at simulated time 0 */
}
