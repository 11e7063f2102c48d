/*
 * CPU context save/restore across a power-down that loses the CPU's state
 * (ARM only; boot/sleep.S and boot/suspend.c). Modelled on Linux's
 * arch/arm/kernel/sleep.S cpu_suspend()/cpu_resume(), written from the
 * ARM ARM (B4.1 CP15 registers) for this kernel's flat identity map.
 *
 * int cpu_suspend(uint32_t arg, int (*fn)(uint32_t arg))
 *   Called with IRQs masked, in SVC mode, on any stack. Saves r4-r12, lr,
 *   SP, CPSR, d8-d15, FPSCR/FPEXC and the CP15 state the kernel uses
 *   (SCTLR, ACTLR, TTBR0/1, TTBCR, DACR, CONTEXTIDR, TPIDRURW/URO/PRW, VBAR,
 *   CPACR) into this CPU's struct suspend_ctx, cleans it and the saved
 *   frame to the point of coherency, then calls fn(arg).
 *   - fn powers the CPU down; the power controller / firmware later enters
 *     cpu_resume (MMU off) and cpu_suspend returns 0 - on the same stack,
 *     with every callee-saved register as it was.
 *   - fn returned (the power-down was aborted, e.g. an IRQ was pending):
 *     cpu_suspend returns fn's value, or 1 if that was 0. Nothing was lost.
 *   fn must leave every dirty line the resumed CPU needs (its stack above
 *   the saved SP, the data it will use) cleaned to the point of coherency
 *   before power goes (the exit-coherency flush does; PSCI firmware does).
 *
 * cpu_resume: the physical entry point (== its address: the map is flat).
 *   Entered with MMU and caches off, in SVC, HYP (dropped) or with any
 *   register contents. Finds the save area from MPIDR through
 *   boot_cpu_hwid[], invalidates its L1 D-cache, restores VBAR, TPIDRPRW
 *   and VFP access, runs the optional early hook (MMU and caches off: the
 *   CCI port back on), restores CP15 with the MMU
 *   and caches on exactly as the CPU had them (the identity map is still
 *   in memory: it is the one secondaries enable), the mode stacks, VFP,
 *   and returns 0 from cpu_suspend. A CPU with no valid save area parks.
 *
 * cpu_pm_resume(): the C side after cpu_suspend returned 0 (the context was
 *   really lost): GIC CPU interface and banked distributor state, this
 *   CPU's local timer and its next deadline (timers_resume_local()).
 */
#ifndef ARCH_SUSPEND_H
#define ARCH_SUSPEND_H

#include <stdint.h>

#include "boot/asm.h"

struct suspend_ctx {
	uint32_t sp, cpsr, sctlr, actlr, ttbr0, ttbr1, ttbcr, dacr;
	uint32_t contextidr, tpidrurw, tpidruro, tpidrprw, vbar, cpacr, fpexc, fpscr;
	uint64_t d8_15[8];
} __attribute__((aligned(CTX_SIZE)));

_Static_assert(sizeof(struct suspend_ctx) == CTX_SIZE, "boot/asm.h CTX_SIZE");
_Static_assert(__builtin_offsetof(struct suspend_ctx, fpscr) == CTX_FPSCR, "boot/asm.h CTX_FPSCR");
_Static_assert(__builtin_offsetof(struct suspend_ctx, d8_15) == CTX_D8, "boot/asm.h CTX_D8");

extern struct suspend_ctx suspend_ctx[CONFIG_NR_CPUS];

typedef int (*suspend_fn)(uint32_t arg);
int cpu_suspend(uint32_t arg, suspend_fn fn);
extern char cpu_resume[];

/*
 * Called by cpu_resume with the MMU and caches off, on the saved stack,
 * with the logical CPU number; NULL: none. Must not rely on cached data.
 * Set before the first suspend (it is cleaned to PoC by suspend_set_early_hook).
 */
typedef void (*resume_early_fn)(int cpu);
void suspend_set_early_hook(resume_early_fn fn);
resume_early_fn suspend_early_hook(void);

/*
 * For tests of the resume path on machines that cannot cut power: clean and
 * invalidate the D-cache to the LoC, leave coherency, MMU and caches off,
 * clobber the state a power loss would (registers, VFP off, TTBR0/TTBCR/
 * DACR/VBAR/TPIDRPRW/CONTEXTIDR), then branch to @entry. Never returns.
 */
void cpu_soft_restart(uint32_t entry) __attribute__((noreturn));

/* Before cpu_suspend: what cpu_pm_resume() restores (the GIC's banked state). */
void cpu_pm_save(void);
/* cpu_suspend returned non-zero (no power loss): undo what the way down did to the GIC. */
void cpu_pm_abort(void);
/* After a real resume (cpu_suspend returned 0): GIC CPU interface, local timer. */
void cpu_pm_resume(void);

#endif
