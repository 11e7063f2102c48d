/*
 * `crash <what>`: deliberate faults, to check that they are reported and
 * contained (tests/qemu/test_faults.py):
 *   crash undef     a task executes an undefined instruction: it is killed
 *   crash abort     a task writes to an unmapped page: it is killed
 *   crash overflow  a task recurses until it hits its stack guard page: killed
 *   crash kernel    the console faults with IRQs off: a kernel fault, panic
 *   crash hang      the console spins with IRQs off: the watchdog (run from a
 *                   busy CPU's tick) panics after 2 s
 *   crash timer <ms>  the console's CPU stops getting its timer interrupt for
 *                   <ms> (its PPI masked at the GIC; IRQs stay on): the
 *                   watchdog kicks it with an IPI that runs its due timers
 *                   (the unmask among them), no panic
 *   crash starve <cpu> <ms>   (debug kernels) the CPU's IRQ exits stop
 *                   preempting for <ms> while it keeps ticking: a task queued
 *                   there behind one that never blocks starves, which the
 *                   starvation detector (`starve`) reports
 * The console waits for the task and prints its exit code.
 */
#include <string.h>

#include "arch/arm.h"
#include "arch/cpu.h"
#include "boot/boot.h"
#include "drivers/timer.h"
#include "kernel/cmdline.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/sched_report.h"
#include "kernel/shell.h"
#include "kernel/time.h"
#include "kernel/timer.h"

#ifdef CONFIG_SCHED_DEBUG
#define CRASH_USAGE "undef|abort|overflow|kernel|hang|timer <ms>|starve <cpu> <ms>"
#else
#define CRASH_USAGE "undef|abort|overflow|kernel|hang|timer <ms>"
#endif

static volatile uint32_t *volatile bad_pointer;

static void undef_fn(void *arg)
{
	(void)arg;
	__asm__ volatile(".word 0xe7f000f0");	/* UDF #0 */
}

static void abort_fn(void *arg)
{
	(void)arg;
	*bad_pointer = 0xdead;
}

static volatile int keep_going = 1;

static int __attribute__((noinline)) recurse(int depth)
{
	volatile char pad[256];

	pad[0] = (char)depth;
	// cppcheck-suppress knownConditionTrueFalse ; volatile: the point is to recurse until the guard page
	return keep_going ? recurse(depth + 1) + pad[0] : depth;
}

static void overflow_fn(void *arg)
{
	(void)arg;
	recurse(0);
}

/*
 * Out of line, so that the panic's backtrace starts here and goes on
 * through cmd_crash and the shell (tests/qemu/test_faults.py checks it).
 */
static void __attribute__((noinline)) kernel_fault(void)
{
	irq_save();
	bad_pointer = (volatile uint32_t *)(task_spare_guard_page() + 16);
	*bad_pointer = 0xdead;
}

static int run_victim(void (*fn)(void *), const char *name)
{
	struct task *t = task_create(name, fn, NULL, 0, 1u << 1 % (unsigned)sched_nr_cpus());
	int code;

	if (!t) {
		kprintf("error: crash: no task slot\n");
		return 1;
	}
	code = task_join(t);
	kprintf("crash: task %s exited with code %d\n", name, code);
	return 0;
}

/* Runs on the masked CPU, from a kick (its own interrupt cannot come). */
static void timer_unmask_fn(struct timer *t)
{
	(void)t;
	timer_local_irq_mask(false);
	kprintf("crash: cpu%d's timer interrupt is unmasked\n", arch_cpu_id());
}

static int lose_timer_interrupt(unsigned long ms)
{
	static struct timer unmask;
	unsigned long flags;

	if (!unmask.fn)
		timer_setup(&unmask, timer_unmask_fn, NULL);
	if (timer_pending(&unmask)) {
		kprintf("error: crash timer: a CPU's timer interrupt is already masked\n");
		return 1;
	}
	/* Mask and arm on one CPU: the console task must not move in between. */
	flags = irq_save();
	timer_local_irq_mask(true);
	timer_arm(&unmask, clock_ns() + (uint64_t)ms * NSEC_PER_MSEC);
	kprintf("crash: cpu%d's timer interrupt is masked for %lu ms (IRQs stay on)\n", arch_cpu_id(), ms);
	irq_restore(flags);
	return 0;
}

static int cmd_crash(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "undef") == 0)
		return run_victim(undef_fn, "undef");
	if (argc == 2 && strcmp(argv[1], "abort") == 0) {
		/* A stack guard page: never mapped. */
		bad_pointer = (volatile uint32_t *)(task_spare_guard_page() + 16);
		return run_victim(abort_fn, "abort");
	}
	if (argc == 2 && strcmp(argv[1], "overflow") == 0)
		return run_victim(overflow_fn, "overflow");
	if (argc == 2 && strcmp(argv[1], "kernel") == 0) {
		kernel_fault();
		return 1;
	}
	if (argc == 2 && strcmp(argv[1], "hang") == 0) {
		irq_save();
		for (;;)
			__asm__ volatile("" ::: "memory");
	}
	if (argc == 3 && strcmp(argv[1], "timer") == 0) {
		unsigned long ms;

		if (!cmdline_parse_ulong(argv[2], 1, 600000, &ms)) {
			kprintf("error: usage: crash timer <ms 1..600000>\n");
			return 1;
		}
		return lose_timer_interrupt(ms);
	}
#ifdef CONFIG_SCHED_DEBUG
	if (argc == 4 && strcmp(argv[1], "starve") == 0) {
		unsigned long cpu, ms;

		if (!cmdline_parse_ulong(argv[2], 0, (unsigned long)sched_nr_cpus() - 1, &cpu) ||
		    !cmdline_parse_ulong(argv[3], 1, 600000, &ms)) {
			kprintf("error: usage: crash starve <cpu> <ms>\n");
			return 1;
		}
		starve_stop_preempting((int)cpu, (uint32_t)ms);
		kprintf("crash: cpu%lu does not preempt for %lu ms\n", cpu, ms);
		return 0;
	}
#endif
	kprintf("error: usage: crash " CRASH_USAGE "\n");
	return 1;
}

static const struct shell_cmd commands[] = {
	{ "crash", "undef|abort|overflow|kernel|hang|timer|starve", "trigger a fault (tests fault containment)", cmd_crash },
};

void crash_commands_register(void)
{
	SHELL_REGISTER_TABLE(commands);
}
