/*
 * C side of exceptions: every synchronous exception and FIQ reaches
 * trap_handler(), which reports the fault (kind, PC, fault status decoded,
 * fault address, registers, a few stack words) and panics. IRQs go to the
 * GIC dispatcher.
 */
#include "boot/trap.h"

#include "arch/arm.h"
#include "arch/cpu.h"
#include "boot/boot.h"
#include "boot/mmu.h"
#include "drivers/gic.h"
#include "kernel/lib/format.h"
#include "kernel/lib/printk.h"
#include "kernel/sched/sched.h"

#include <stdarg.h>

static const char *const trap_names[] = {
	[TRAP_RESET] = "reset vector",
	[TRAP_UNDEF] = "undefined instruction",
	[TRAP_SVC] = "unexpected SVC",
	[TRAP_PABT] = "prefetch abort",
	[TRAP_DABT] = "data abort",
	[TRAP_RESERVED] = "reserved vector",
	[TRAP_FIQ] = "unexpected FIQ",
};

/* Short-descriptor fault status (FS[4] = bit 10, FS[3:0] = bits 3:0). */
static const char *fault_status(uint32_t fsr)
{
	switch (((fsr >> 6) & 0x10) | (fsr & 0xf)) {
	case 0x01: return "alignment fault";
	case 0x02: return "debug event";
	case 0x03: return "access flag fault (section)";
	case 0x06: return "access flag fault (page)";
	case 0x04: return "instruction cache maintenance fault";
	case 0x05: return "translation fault (section)";
	case 0x07: return "translation fault (page)";
	case 0x08: return "synchronous external abort";
	case 0x09: return "domain fault (section)";
	case 0x0b: return "domain fault (page)";
	case 0x0c: return "external abort on translation walk (L1)";
	case 0x0e: return "external abort on translation walk (L2)";
	case 0x0d: return "permission fault (section)";
	case 0x0f: return "permission fault (page)";
	case 0x16: return "asynchronous external abort";
	case 0x18: return "asynchronous parity error";
	case 0x19: return "synchronous parity error";
	default: return "unknown fault status";
	}
}

void trap_dump(const struct trap_frame *tf)
{
	for (int i = 0; i < 13; i += 4) {
		panic_print(" r%-2d %08x", i, (unsigned)tf->r[i]);
		for (int j = i + 1; j < i + 4 && j < 13; j++)
			panic_print("  r%-2d %08x", j, (unsigned)tf->r[j]);
		panic_print("\n");
	}
	panic_print(" sp  %08x  lr  %08x  pc  %08x  cpsr %08x\n", (unsigned)tf->sp,
		    (unsigned)tf->lr, (unsigned)tf->pc, (unsigned)tf->cpsr);
	if ((tf->sp & 3) == 0 && mmu_is_ram(tf->sp, 32)) {
		const uint32_t *s = (const uint32_t *)(uintptr_t)tf->sp;

		panic_print(" stack:");
		for (int i = 0; i < 8; i++)
			panic_print(" %08x", (unsigned)s[i]);
		panic_print("\n");
	}
	backtrace_print(tf, panic_print);
}

/* Where the fault address points, if it is a stack guard page. */
static void describe_guard(uint32_t addr, void (*print)(const char *fmt, ...))
{
	struct task *t = task_of_guard(addr);
	int cpu;

	if (t && t->state == TASK_FREE)
		print(" 0x%08x is the guard page of an unused task stack slot\n", (unsigned)addr);
	else if (t)
		print(" stack overflow: 0x%08x is the guard page below task %u (%s)'s stack\n", (unsigned)addr,
		      (unsigned)t->tid, t->name);
	else if (mmu_is_cpu_stack_guard(addr, &cpu))
		print(" stack overflow: 0x%08x is the guard page below cpu%d's SVC stack\n", (unsigned)addr, cpu);
}

static void kprint_adapter(const char *fmt, ...)
{
	char buf[200];
	va_list ap;

	va_start(ap, fmt);
	kvsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	kprintf("%s", buf);
}

/*
 * A fault in task context (SVC mode with IRQs enabled, so no spinlock is
 * held: every lock is taken with IRQs off) kills the task; anything else
 * is a kernel fault and panics.
 */
#define PSR_THUMB (1u << 5)
#define PSR_IT_BITS ((3u << 25) | (0x3fu << 10))

static bool is_task_fault(const struct trap_frame *tf, int type)
{
	struct task *cur;

	if (type != TRAP_UNDEF && type != TRAP_DABT && type != TRAP_PABT)
		return false;
	if ((tf->cpsr & MODE_MASK) != MODE_SVC || (tf->cpsr & PSR_I))
		return false;
	cur = cpu_rq(arch_cpu_id())->curr;
	return cur && !cur->is_idle;
}

static void task_fault_exit(int code)
{
	task_exit(code);
}

/* Switch SVC's banked sp (we run in ABT/UND mode with IRQs off). */
static void set_svc_sp(uint32_t sp)
{
	uint32_t cpsr;

	__asm__ volatile("mrs %0, cpsr\n\t"
			 "cps #0x13\n\t"
			 "mov sp, %1\n\t"
			 "msr cpsr_c, %0\n\t"
			 : "=&r"(cpsr) : "r"(sp) : "memory");
}

static void kill_task(struct trap_frame *tf, int type, const char *what)
{
	struct task *t = cpu_rq(arch_cpu_id())->curr;

	kprintf("fault: task %u (%s) on cpu%d: %s at pc=0x%08x; task killed\n", (unsigned)t->tid, t->name,
		arch_cpu_id(), what, (unsigned)tf->pc);
	if (type == TRAP_DABT)
		describe_guard(read_dfar(), kprint_adapter);
	backtrace_print(tf, kprint_adapter);
	/* Resume in SVC at task_fault_exit on the top of its own (now dead) stack. */
	tf->r[0] = (uint32_t)(type == TRAP_UNDEF ? TASK_EXIT_SIGILL : TASK_EXIT_SIGSEGV);
	tf->pc = (uint32_t)(uintptr_t)task_fault_exit;
	tf->cpsr &= ~(PSR_THUMB | PSR_IT_BITS);	/* the kernel is ARM code */
	set_svc_sp(((uint32_t)(uintptr_t)t->stack + TASK_STACK_SIZE) & ~7u);
}

void trap_handler(struct trap_frame *tf, int type)
{
	const char *name = type >= 0 && type <= TRAP_FIQ ? trap_names[type] : "exception";

	if (is_task_fault(tf, type)) {
		char what[160];

		if (type == TRAP_DABT) {
			uint32_t dfsr = read_dfsr();

			ksnprintf(what, sizeof(what), "%s: %s on %s of 0x%08x", name, fault_status(dfsr),
				  (dfsr & (1u << 11)) ? "write" : "read", (unsigned)read_dfar());
		} else if (type == TRAP_PABT) {
			ksnprintf(what, sizeof(what), "%s: %s at 0x%08x", name, fault_status(read_ifsr()),
				  (unsigned)read_ifar());
		} else {
			ksnprintf(what, sizeof(what), "%s", name);
		}
		kill_task(tf, type, what);
		return;
	}
	panic_begin();
	if (type == TRAP_DABT) {
		uint32_t dfsr = read_dfsr();

		panic_print("panic: cpu%d: %s at pc=0x%08x: %s on %s of 0x%08x (dfsr=0x%03x)\n",
			    arch_cpu_id(), name, (unsigned)tf->pc, fault_status(dfsr),
			    (dfsr & (1u << 11)) ? "write" : "read", (unsigned)read_dfar(),
			    (unsigned)dfsr);
	} else if (type == TRAP_PABT) {
		uint32_t ifsr = read_ifsr();

		panic_print("panic: cpu%d: %s at pc=0x%08x: %s (ifsr=0x%03x ifar=0x%08x)\n",
			    arch_cpu_id(), name, (unsigned)tf->pc, fault_status(ifsr),
			    (unsigned)ifsr, (unsigned)read_ifar());
	} else {
		panic_print("panic: cpu%d: %s at pc=0x%08x\n", arch_cpu_id(), name,
			    (unsigned)tf->pc);
	}
	if (type == TRAP_DABT)
		describe_guard(read_dfar(), panic_print);
	trap_dump(tf);
	panic_halt();
}

#ifdef CONFIG_SCHED_DEBUG
static volatile bool in_irq[CONFIG_NR_CPUS];

bool arch_in_irq(void)
{
	return in_irq[arch_cpu_id()];
}
#endif

void irq_handler(void)
{
#ifdef CONFIG_SCHED_DEBUG
	in_irq[arch_cpu_id()] = true;
#endif
	gic_handle_irq();
#ifdef CONFIG_SCHED_DEBUG
	/* Before the exit: it may switch, and the next task is not in an interrupt. */
	in_irq[arch_cpu_id()] = false;
#endif
	sched_irq_exit();
}
