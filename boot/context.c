/* Fresh task contexts for arch_context_switch (boot/switch.S). */
#include <stddef.h>
#include <string.h>

#include "arch/context.h"

_Static_assert(offsetof(struct arch_context, sp) == 32, "switch.S layout");
_Static_assert(offsetof(struct arch_context, pc) == 36, "switch.S layout");
_Static_assert(offsetof(struct arch_context, fpscr) == 40, "switch.S layout");
_Static_assert(offsetof(struct arch_context, d) == 48, "switch.S layout");

void arch_task_start(void);	/* boot/switch.S: blx r4 */

void arch_context_init(struct arch_context *ctx, void *stack_top, void (*entry)(void))
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->sp = (uint32_t)(uintptr_t)stack_top & ~7u;	/* AAPCS: 8-byte aligned */
	/* Through a trampoline that backtraces stop at (the unwind tables end there). */
	ctx->pc = (uint32_t)(uintptr_t)arch_task_start;
	ctx->r4_r11[0] = (uint32_t)(uintptr_t)entry;
	ctx->fpscr = 0;		/* round to nearest, no traps */
}
