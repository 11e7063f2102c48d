/*
 * `idle resume-test [rounds] [psci|reset]` (include/arch/power.h): the
 * warm-boot save/restore path exercised on machines that cannot cut power.
 *
 * reset: cpu_suspend() with a finisher that does what a power cycle does to
 *   the state the resume path must restore - the GIC's banked state and CPU
 *   interface back to reset values, the local timer stopped - then
 *   cpu_soft_restart(cpu_resume): caches cleaned and off, MMU off,
 *   registers, VFP, TTBR0/TTBCR/DACR/VBAR/TPIDRPRW/TPIDRURO clobbered, a branch to
 *   cpu_resume's physical address. So every instruction of the resume path
 *   runs as after a real power-up (minus the firmware's reset code).
 * psci: the finisher is PSCI CPU_SUSPEND(core power-down, cpu_resume) with
 *   the local timer as wake-up. QEMU implements every CPU_SUSPEND as WFI and
 *   returns SUCCESS (no power-down), which is reported as such.
 * Checks: callee-saved core and VFP registers and a stack canary survive,
 * the GIC's banked state reads back as saved, a task pinned to this CPU
 * keeps running between rounds, and a timer armed before the first round
 * fires after the last one. Round trip = clock before cpu_suspend to clock
 * after it returned (under icount, 1 ns = 1 instruction).
 */
#include <stdbool.h>
#include <stdint.h>

#include "arch/arm.h"
#include "arch/barrier.h"
#include "arch/cpu.h"
#include "arch/power.h"
#include "arch/smp.h"
#include "arch/suspend.h"
#include "drivers/gic.h"
#include "drivers/psci.h"
#include "drivers/timer.h"
#include "kernel/lib/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/time/time.h"
#include "kernel/time/timer.h"

#define WORKER_PERIOD_NS 50000u		/* the pinned task's sleep */
#define GAP_NS 200000u			/* between rounds: the task and the timers run */
#define TASK_WAIT_GAPS 100		/* up to 20 ms for the worker to run again */
#define PROBE_DELAY_NS 100000u		/* the probe timer: due during the rounds */
#define PSCI_WAKE_NS 20000u		/* psci: the local timer ends QEMU's WFI */

static volatile uint32_t worker_count, worker_stop;
/* Written by the test's early hook with the MMU and caches off: one line per CPU. */
static struct {
	volatile uint32_t v;
} __attribute__((aligned(64))) early_seen[CONFIG_NR_CPUS];
#define EARLY_MAGIC 0x5eed0001u

/* cpu_resume's early hook while the test runs (none registered: not a TC2). */
static void test_early_hook(int cpu)
{
	early_seen[cpu].v = EARLY_MAGIC;
}
static volatile uint32_t probe_fired;

static void worker_fn(void *arg)
{
	(void)arg;
	while (!READ_ONCE(worker_stop)) {
		task_sleep_ns(WORKER_PERIOD_NS);
		worker_count++;
	}
}

static void probe_fn(struct timer *t)
{
	(void)t;
	probe_fired = 1;
}

static int soft_restart_fn(uint32_t arg)
{
	(void)arg;
	gic_cpu_clobber();
	clockevent_cancel();
	cpu_soft_restart((uint32_t)(uintptr_t)cpu_resume);
}

static int psci_fn(uint32_t arg)
{
	int err;

	/* IRQs are masked: a pending timer interrupt still ends a WFI. */
	clockevent_set_deadline(clock_ns() + PSCI_WAKE_NS);
	err = psci_cpu_suspend(arg, (uint32_t)(uintptr_t)cpu_resume, 0);
	return err == PSCI_SUCCESS ? 1 : err;
}

struct round {
	int ret;
	uint64_t ns;
	bool regs_ok, vfp_ok, stack_ok;
};

/*
 * One round with values live across cpu_suspend: seven in callee-saved core
 * registers (r11 is the frame pointer), the rest on the stack, two doubles
 * in d8-d15. Not inlined: the frame is its own.
 */
static __attribute__((noinline)) void one_round(suspend_fn fn, uint32_t arg, uint32_t seed, struct round *r)
{
	volatile uint32_t canary[16];
	uint32_t a = seed * 3u + 1u, b = seed ^ 0x5a5a5a5au, c = seed + 0x1234567u, d = ~seed;
	uint32_t e = seed * 7u, f = seed << 3, g = seed >> 2, h = seed * 11u + 5u;
	double x = (double)seed * 1.5, y = (double)seed + 0.25;
	uint64_t t0, t1;
	bool ok = true;

	for (unsigned i = 0; i < 16; i++)
		canary[i] = seed + i * 0x01010101u;
	__asm__ volatile("" : "+r"(a), "+r"(b), "+r"(c), "+r"(d), "+r"(e), "+r"(f), "+r"(g), "+r"(h));
	__asm__ volatile("" : "+w"(x), "+w"(y));
	t0 = clock_ns();
	r->ret = cpu_suspend(arg, fn);
	t1 = clock_ns();
	__asm__ volatile("" : "+r"(a), "+r"(b), "+r"(c), "+r"(d), "+r"(e), "+r"(f), "+r"(g), "+r"(h));
	__asm__ volatile("" : "+w"(x), "+w"(y));
	r->ns = t1 - t0;
	/* The asm barriers make a-h opaque: a register the resume path lost would differ. */
	// cppcheck-suppress knownConditionTrueFalse
	r->regs_ok = a == seed * 3u + 1u && b == (seed ^ 0x5a5a5a5au) && c == seed + 0x1234567u && d == ~seed &&
		     // cppcheck-suppress knownConditionTrueFalse
		     e == seed * 7u && f == seed << 3 && g == seed >> 2 && h == seed * 11u + 5u;
	r->vfp_ok = x == (double)seed * 1.5 && y == (double)seed + 0.25;
	for (unsigned i = 0; i < 16; i++)
		ok = ok && canary[i] == seed + i * 0x01010101u;
	r->stack_ok = ok;
}

static bool gic_same(const struct gic_cpu_state *a, const struct gic_cpu_state *b)
{
	if (a->enable != b->enable || a->ctlr != b->ctlr || a->pmr != b->pmr || a->bpr != b->bpr)
		return false;
	for (int i = 0; i < 8; i++)
		if (a->prio[i] != b->prio[i])
			return false;
	return true;
}

static const char *ok_str(bool ok)
{
	return ok ? "ok" : "FAILED";
}

int platform_resume_test(int rounds, bool psci)
{
	int cpu = arch_cpu_id(), resumed = 0, returned = 0, failed_ret = 0;
	bool regs = true, vfp = true, stack = true, gic = true, task = true, early = true;
	bool own_hook = !psci && suspend_early_hook() == NULL;
	uint64_t min = UINT64_MAX, max = 0, sum = 0;
	struct timer probe;
	struct task *w;
	uint32_t power_state = PSCI_PD_CORE;

	if (psci && !psci_present()) {
		kprintf("error: idle resume-test psci: this board has no PSCI firmware (no arm,psci-0.2 node)\n");
		return 1;
	}
	worker_count = 0;
	worker_stop = 0;
	probe_fired = 0;
	w = task_create("resume-worker", worker_fn, NULL, 0, 1u << cpu);
	if (!w) {
		kprintf("error: idle resume-test: cannot create the worker task\n");
		return 1;
	}
	task_sleep_ns(GAP_NS);
	if (own_hook)
		suspend_set_early_hook(test_early_hook);
	timer_setup(&probe, probe_fn, NULL);
	timer_arm(&probe, clock_ns() + PROBE_DELAY_NS);

	for (int i = 0; i < rounds; i++) {
		struct gic_cpu_state before, after;
		struct round r;
		uint32_t seen = worker_count;
		unsigned long flags = irq_save();

		early_seen[cpu].v = 0;
		dcache_clean_range(&early_seen[cpu], sizeof(early_seen[cpu]));
		cpu_pm_save();
		gic_cpu_save(&before);
		one_round(psci ? psci_fn : soft_restart_fn, power_state, 0x1000u + (uint32_t)i, &r);
		if (r.ret == 0) {
			cpu_pm_resume();
			resumed++;
			/* Stored to memory with caches off: drop any cached copy, then read. */
			write_dcimvac((uint32_t)(uintptr_t)&early_seen[cpu]);
			dsb();
			early = early && (!own_hook || early_seen[cpu].v == EARLY_MAGIC);
		} else {
			cpu_pm_abort();
			timers_resume_local();	/* psci_fn programmed its wake-up deadline */
			if (r.ret < 0 && !failed_ret)
				failed_ret = r.ret;
			returned++;
		}
		gic_cpu_save(&after);
		irq_restore(flags);
		gic = gic && gic_same(&before, &after);
		regs = regs && r.regs_ok;
		vfp = vfp && r.vfp_ok;
		stack = stack && r.stack_ok;
		min = r.ns < min ? r.ns : min;
		max = r.ns > max ? r.ns : max;
		sum += r.ns;
		/* The worker runs again (it may wait behind other tasks on this CPU: bounded). */
		for (int gap = 0; gap < TASK_WAIT_GAPS && worker_count == seen; gap++)
			task_sleep_ns(GAP_NS);
		task = task && worker_count != seen;
		if (failed_ret)
			break;
	}
	/* The probe was due mid-way (or right after a short run): give it its time. */
	task_sleep_ns(PROBE_DELAY_NS + GAP_NS);
	worker_stop = 1;
	task_join(w);
	timer_cancel(&probe);
	if (own_hook)
		suspend_set_early_hook(NULL);

	if (!psci) {
		/* What the cache flush alone costs, to split the round trip: flush, then rejoin. */
		unsigned long flags = irq_save();
		uint64_t f0 = clock_ns(), f1;

		cpu_exit_coherency_flush(true);
		write_actlr(read_actlr() | ACTLR_SMP);
		isb();
		write_sctlr(read_sctlr() | SCTLR_C);
		isb();
		f1 = clock_ns();
		irq_restore(flags);
		kprintf("idle: resume-test: of a round trip, the clean+invalidate to the LoC alone takes flush_ns=%llu\n",
			(unsigned long long)(f1 - f0));
	}
	if (failed_ret) {
		kprintf("error: idle resume-test psci: CPU_SUSPEND(0x%08x) failed: %s\n", (unsigned)power_state,
			psci_strerror(failed_ret));
		return 1;
	}
	if (psci) {
		int aff = psci_affinity_info(smp_cpu(cpu)->hwid, 0);

		kprintf("idle: resume-test: psci AFFINITY_INFO(cpu%d)=%d (%s)\n", cpu, aff,
			aff == PSCI_AFF_ON ? "on" : aff == PSCI_AFF_OFF ? "off" : aff == PSCI_AFF_ON_PENDING ? "on-pending"
			: psci_strerror(aff));
		if (returned)
			kprintf("idle: resume-test: PSCI CPU_SUSPEND returned SUCCESS %d times without a power-down "
				"(QEMU implements it as WFI): cpu_resume was not entered\n", returned);
	}
	kprintf("idle: resume-test cpu%d mode=%s rounds=%d resumed=%d returned=%d rt_ns_min=%llu rt_ns_avg=%llu "
		"rt_ns_max=%llu regs=%s vfp=%s stack=%s gic=%s task=%s timer=%s early_hook=%s\n",
		cpu, psci ? "psci" : "reset", rounds, resumed, returned, (unsigned long long)min,
		(unsigned long long)(sum / (uint64_t)rounds), (unsigned long long)max, ok_str(regs), ok_str(vfp), ok_str(stack),
		ok_str(gic), ok_str(task), ok_str(probe_fired != 0), !own_hook ? "n/a" : ok_str(early));
	return regs && vfp && stack && gic && task && early && probe_fired && (psci || resumed == rounds) ? 0 : 1;
}
