/*
 * `crash <what>`: deliberate faults, to check that they are reported and
 * contained (tests/qemu/test_faults.py):
 *   crash undef     a task executes an undefined instruction: it is killed
 *   crash abort     a task writes to an unmapped page: it is killed
 *   crash overflow  a task recurses until it hits its stack guard page: killed
 *   crash kernel    the console faults with IRQs off: a kernel fault, panic
 *   crash hang      the console spins with IRQs off: the watchdog (run from a
 *                   busy CPU's tick) panics after 2 s
 *   crash deadlock  the console takes a spinlock it holds (IRQs off): the
 *                   same panic, which in debug kernels names the lock it
 *                   spins for, its holder and where that took it
 *   crash timer <ms>  the console's CPU stops getting its timer interrupt for
 *                   <ms> (its PPI masked at the GIC; IRQs stay on): the
 *                   watchdog kicks it with an IPI that runs its due timers
 *                   (the unmask among them), no panic
 *   crash vfp <ms>  for <ms>, a timer callback on CPU 1 (interrupt context)
 *                   overwrites d0-d7 and FPSCR every ms, as any handler's C
 *                   code may (newlib's memcpy, GCC's 64-bit constant stores),
 *                   while a task there keeps values in them: the interrupt
 *                   entry must give them back (boot/head.S, vec_irq)
 *   crash backlog <n> <ms>  n timers on CPU 1 fall due at once, each callback
 *                   busy for <ms> (as a wake-up waiting long for rq locks),
 *                   while a task there spins: it says how long the task
 *                   went without running, which timers_run()'s budget keeps
 *                   to about one callback
 *   crash starve <cpu> <ms>   (debug kernels) the CPU's IRQ exits stop
 *                   preempting for <ms> while it keeps ticking: a task queued
 *                   there behind one that never blocks starves, which the
 *                   starvation detector (`starve`) reports
 * The console waits for the task and prints its exit code.
 */
#include <string.h>

#include "arch/arm.h"
#include "arch/barrier.h"
#include "arch/cpu.h"
#include "arch/spinlock.h"
#include "boot/boot.h"
#include "drivers/timer.h"
#include "kernel/lib/cmdline.h"
#include "kernel/lib/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/debug/sched_report.h"
#include "kernel/console/shell.h"
#include "kernel/time/time.h"
#include "kernel/time/timer.h"

#ifdef CONFIG_SCHED_DEBUG
#define CRASH_USAGE "undef|abort|overflow|kernel|hang|timer <ms>|vfp <ms>|backlog <n> <ms>|starve <cpu> <ms>"
#else
#define CRASH_USAGE "undef|abort|overflow|kernel|hang|timer <ms>|vfp <ms>|backlog <n> <ms>"
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

/* Run @fn as a task on CPU 1 (CPU 0 if it is the only one) and wait for its exit @code. */
static bool run_on_cpu1(const char *name, void (*fn)(void *), void *arg, int *code)
{
	struct task *t = task_create(name, fn, arg, 0, 1u << 1 % (unsigned)sched_nr_cpus());

	if (!t) {
		kprintf("error: crash: no task slot\n");
		return false;
	}
	*code = task_join(t);
	return true;
}

static int run_victim(void (*fn)(void *), const char *name)
{
	int code;

	if (!run_on_cpu1(name, fn, NULL, &code))
		return 1;
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

/*
 * `crash vfp`: what the task holds in the caller-saved VFP registers
 * (AAPCS-VFP: d0-d7 and FPSCR), and what the interrupt writes over them.
 * FPSCR: NZCV, default NaN, round towards zero, two cumulative flags (no
 * Len/Stride, which Cortex-A15 does not implement).
 */
static const uint64_t vfp_held[8] = {
	0x0123456789abcdefull, 0x1111111122222222ull, 0x3333333344444444ull, 0x5555555566666666ull,
	0x7777777788888888ull, 0x99999999aaaaaaaaull, 0xbbbbbbbbccccccccull, 0xddddddddeeeeeeeeull,
};
#define VFP_HELD_FPSCR 0xa2c00003u
#define VFP_CLOBBER_PERIOD_NS NSEC_PER_MSEC

static struct {
	struct timer clobber;
	volatile bool active;
	volatile unsigned int interrupts;
} vfp;

static void vfp_clobber_fn(struct timer *t)
{
	uint32_t junk = 0xdead0000u + vfp.interrupts;

	__asm__ volatile("vmov d0, %0, %0\n\tvmov d1, %0, %0\n\tvmov d2, %0, %0\n\tvmov d3, %0, %0\n\t"
			 "vmov d4, %0, %0\n\tvmov d5, %0, %0\n\tvmov d6, %0, %0\n\tvmov d7, %0, %0\n\t"
			 "vmsr fpscr, %1"
			 :: "r"(junk), "r"(0u) : "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7");
	vfp.interrupts++;
	if (vfp.active)
		timer_arm(t, clock_ns() + VFP_CLOBBER_PERIOD_NS);
}

/*
 * Load the held values and check them @rounds times in a row, in one asm
 * block (no call may come between: calls may use d0-d7). Returns 0 if they
 * held, else 1 + the register that changed (d0..d7), 9 for FPSCR.
 */
static uint32_t vfp_hold(uint32_t rounds)
{
	uint32_t bad;

#define VFP_CHECK(n) "vmov r0, r1, d" #n "\n\tldrd r2, r3, [%[held], #" #n "*8]\n\t" \
		     "cmp r0, r2\n\tcmpeq r1, r3\n\tmovne %[bad], #" #n "+1\n\tbne 2f\n\t"
	__asm__ volatile("vldmia %[held], {d0-d7}\n\t"
			 "vmsr fpscr, %[fpscr]\n"
			 "1:\t"
			 VFP_CHECK(0) VFP_CHECK(1) VFP_CHECK(2) VFP_CHECK(3)
			 VFP_CHECK(4) VFP_CHECK(5) VFP_CHECK(6) VFP_CHECK(7)
			 "vmrs r0, fpscr\n\t"
			 "cmp r0, %[fpscr]\n\tmovne %[bad], #9\n\tbne 2f\n\t"
			 "subs %[n], %[n], #1\n\tbne 1b\n\t"
			 "mov %[bad], #0\n"
			 "2:"
			 : [bad] "=&r"(bad), [n] "+r"(rounds)
			 : [held] "r"(vfp_held), [fpscr] "r"(VFP_HELD_FPSCR)
			 : "r0", "r1", "r2", "r3", "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "cc", "memory");
#undef VFP_CHECK
	__asm__ volatile("vmsr fpscr, %0" :: "r"(0u));
	return bad;
}

static void vfp_fn(void *arg)
{
	uint64_t end = clock_ns() + (uint64_t)(uintptr_t)arg * NSEC_PER_MSEC;
	unsigned long flags;
	uint32_t bad = 0;
	unsigned int seen;

	vfp.interrupts = 0;
	vfp.active = true;
	timer_setup(&vfp.clobber, vfp_clobber_fn, NULL);
	flags = irq_save();	/* armed here: on this task's CPU */
	timer_arm(&vfp.clobber, clock_ns() + VFP_CLOBBER_PERIOD_NS);
	irq_restore(flags);
	while (!bad && clock_ns() < end)
		bad = vfp_hold(20000);
	vfp.active = false;
	timer_cancel(&vfp.clobber);
	seen = vfp.interrupts;
	if (bad)
		kprintf("crash: vfp: the task's %s%u changed across an interrupt on cpu%d (after %u interrupts that "
			"overwrote d0-d7 and FPSCR)\n", bad == 9 ? "FPSCR" : "d", bad == 9 ? 0u : (unsigned)(bad - 1),
			arch_cpu_id(), seen);
	else
		kprintf("crash: vfp: the task's d0-d7 and FPSCR held across %u interrupts on cpu%d that overwrote "
			"them\n", seen, arch_cpu_id());
	task_exit(bad ? 1 : 0);
}

static int hold_vfp_across_interrupts(unsigned long ms)
{
	int code;

	return run_on_cpu1("vfp", vfp_fn, (void *)(uintptr_t)ms, &code) && code == 0 ? 0 : 1;
}

#define BACKLOG_MAX 64

static struct {
	struct timer timers[BACKLOG_MAX];
	unsigned int n;
	uint32_t busy_us;
	volatile unsigned int done;
	uint64_t first_ns, last_ns;	/* first callback started, last one returned */
} backlog;

static void backlog_fn(struct timer *t)
{
	(void)t;
	if (!backlog.first_ns)
		backlog.first_ns = clock_ns();
	udelay(backlog.busy_us);
	backlog.last_ns = clock_ns();
	backlog.done++;
}

static void backlog_task_fn(void *arg)
{
	uint64_t prev, longest = 0, due;
	unsigned long flags;

	(void)arg;
	backlog.done = 0;
	backlog.first_ns = 0;
	flags = irq_save();	/* armed here: all on this task's CPU */
	due = clock_ns() + 10 * NSEC_PER_MSEC;
	for (unsigned int i = 0; i < backlog.n; i++) {
		timer_setup(&backlog.timers[i], backlog_fn, NULL);
		timer_arm(&backlog.timers[i], due);
	}
	irq_restore(flags);
	prev = clock_ns();
	for (;;) {
		uint64_t now = clock_ns();

		if (READ_ONCE(backlog.first_ns) && now - prev > longest)
			longest = now - prev;
		prev = now;
		if (backlog.done == backlog.n)
			break;
	}
	kprintf("crash: backlog: %u callbacks of %lu ms on cpu%d took %llu ms; the task there went %llu ms "
		"without running\n", backlog.n, (unsigned long)(backlog.busy_us / 1000), arch_cpu_id(),
		(unsigned long long)((backlog.last_ns - backlog.first_ns) / NSEC_PER_MSEC),
		(unsigned long long)(longest / NSEC_PER_MSEC));
	task_exit(0);
}

static int run_backlog(unsigned long n, unsigned long ms)
{
	int code;

	backlog.n = (unsigned int)n;
	backlog.busy_us = (uint32_t)ms * 1000u;
	return run_on_cpu1("backlog", backlog_task_fn, NULL, &code) && code == 0 ? 0 : 1;
}

/* The faults that take a duration: `crash <what> <ms>`. */
static const struct {
	const char *what;
	int (*fn)(unsigned long ms);
} timed[] = {
	{ "timer", lose_timer_interrupt },
	{ "vfp", hold_vfp_across_interrupts },
};

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
	if (argc == 2 && strcmp(argv[1], "deadlock") == 0) {
		static spinlock_t lock = SPINLOCK_INIT;

		irq_save();
		spin_lock(&lock);
		spin_lock(&lock);	/* never served: our own ticket is ahead */
		return 1;
	}
	if (argc == 2 && strcmp(argv[1], "hang") == 0) {
		irq_save();
		for (;;)
			__asm__ volatile("" ::: "memory");
	}
	for (unsigned int i = 0; argc == 3 && i < sizeof(timed) / sizeof(timed[0]); i++) {
		unsigned long ms;

		if (strcmp(argv[1], timed[i].what) != 0)
			continue;
		if (!cmdline_parse_ulong(argv[2], 1, 600000, &ms)) {
			kprintf("error: usage: crash %s <ms 1..600000>\n", timed[i].what);
			return 1;
		}
		return timed[i].fn(ms);
	}
	if (argc == 4 && strcmp(argv[1], "backlog") == 0) {
		unsigned long n, ms;

		if (!cmdline_parse_ulong(argv[2], 1, BACKLOG_MAX, &n) || !cmdline_parse_ulong(argv[3], 1, 1000, &ms)) {
			kprintf("error: usage: crash backlog <timers 1..%d> <ms 1..1000>\n", BACKLOG_MAX);
			return 1;
		}
		return run_backlog(n, ms);
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
	{ "crash", "undef|abort|overflow|kernel|hang|timer|vfp|backlog|starve", "trigger a fault (tests fault containment)", cmd_crash },
};

SHELL_COMMANDS(commands);
