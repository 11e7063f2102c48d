/*
 * arch_panic() (kernel/lib/panic.c formats the message): the first CPU to panic owns the console (without its lock: the
 * lock may be held by the CPU that crashed), stops the others with an IPI
 * and then does what the bootarg panic=halt|poweroff|reboot says (halt by
 * default; tools/qemu-run passes poweroff, so QEMU ends). Any CPU that
 * panics afterwards parks silently.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kernel/lib/format.h"
#include "arch/arm.h"
#include "arch/console.h"
#include "arch/cpu.h"
#include "arch/smp.h"
#include "boot/boot.h"
#include "drivers/console.h"
#include "kernel/lib/panic.h"

static volatile int panic_cpu = -1;
static char panic_buf[512];
bool gic_ready;

static const char *const action_names[] = { "halt", "poweroff", "reboot" };
static enum { PANIC_HALT, PANIC_POWEROFF, PANIC_REBOOT } panic_action;

int panic_set_action(const char *name)
{
	for (unsigned i = 0; i < sizeof(action_names) / sizeof(action_names[0]); i++)
		if (strcmp(name, action_names[i]) == 0) {
			panic_action = i;
			return 0;
		}
	return -1;
}

void panic_begin(void)
{
	int self = arch_cpu_id();

	irq_disable();
	if (!__sync_bool_compare_and_swap(&panic_cpu, -1, self) && panic_cpu != self)
		cpu_park();
	if (gic_ready)
		smp_send_stop();
}

void panic_print(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = kvsnprintf(panic_buf, sizeof(panic_buf), fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(panic_buf) - 1)
		n = sizeof(panic_buf) - 1;
	if (n > 0)
		console_write_panic(panic_buf, (size_t)n);
}

void panic_halt(void)
{
	if (panic_action == PANIC_HALT) {
		panic_print("--- halted; cpu%d stopped the other CPUs ---\n", arch_cpu_id());
		cpu_park();
	}
	panic_print("--- panic=%s; cpu%d stopped the other CPUs ---\n", action_names[panic_action],
		    arch_cpu_id());
	platform_emergency_power(panic_action == PANIC_POWEROFF);
	panic_print("--- panic=%s: no way to do it on this board; halted ---\n", action_names[panic_action]);
	cpu_park();
}

void arch_panic_plain(const char *msg)
{
	panic_begin();
	panic_print("panic: %s\n", msg);
	panic_halt();
}

void arch_panic(const char *msg)
{
	panic_begin();
	panic_print("panic: cpu%d: %s\n", arch_cpu_id(), msg);
	backtrace_here(panic_print);
	panic_halt();
}
