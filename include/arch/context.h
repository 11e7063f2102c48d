/*
 * Saved CPU context of a task that is not running (ARM): callee-saved core
 * registers, sp, the resume address, and the whole VFP register file with
 * FPSCR. All of d0-d15 are saved because a task can be switched out from
 * the IRQ path, where its caller-saved VFP registers are live; the kernel
 * itself is built without NEON, so IRQ code never touches VFP.
 */
#ifndef ARCH_CONTEXT_H
#define ARCH_CONTEXT_H

#include <stdint.h>

struct arch_context {
	uint32_t r4_r11[8];
	uint32_t sp;
	uint32_t pc;		/* where arch_context_switch returns to */
	uint32_t fpscr;
	uint32_t pad;
	uint64_t d[16];
};

/* Save the running context into @prev and resume @next. */
void arch_context_switch(struct arch_context *prev, struct arch_context *next);
/* A fresh context that starts @entry (no arguments) on @stack_top. */
void arch_context_init(struct arch_context *ctx, void *stack_top, void (*entry)(void));

#endif
