/*
 * Saved CPU context of a task that is not running (ARM): callee-saved core
 * registers, sp, the resume address, and the whole VFP register file with
 * FPSCR. All of d0-d15 are saved because a task can be switched out from
 * the IRQ path, where its caller-saved VFP registers are live; the kernel
 * itself is built without NEON, so IRQ code never touches VFP.
 * Host ports: the simulator (tools/schedsim) runs tasks on host stacks; the
 * host port of the unit tests never switches (it panics if asked).
 */
#ifndef ARCH_CONTEXT_H
#define ARCH_CONTEXT_H

#include <stdint.h>

#ifdef __arm__
struct arch_context {
	uint32_t r4_r11[8];
	uint32_t sp;
	uint32_t pc;		/* where arch_context_switch returns to */
	uint32_t fpscr;
	uint32_t pad;
	uint64_t d[16];
};
#else
/* Host ports: the simulator switches host stacks (its callee-saved registers are on them). */
struct arch_context {
	void *sp;
};
#endif

/* Save the running context into @prev and resume @next. */
void arch_context_switch(struct arch_context *prev, struct arch_context *next);
/* A fresh context that starts @entry (no arguments) on @stack_top. */
void arch_context_init(struct arch_context *ctx, void *stack_top, void (*entry)(void));

#endif
