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
#include "kernel/sched.h"

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
}

void trap_handler(struct trap_frame *tf, int type)
{
	const char *name = type >= 0 && type <= TRAP_FIQ ? trap_names[type] : "exception";

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
	trap_dump(tf);
	panic_halt();
}

void irq_handler(void)
{
	gic_handle_irq();
	sched_irq_exit();
}
