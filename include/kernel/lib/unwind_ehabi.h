/*
 * Stack unwinding from ARM EHABI tables (.ARM.exidx / .ARM.extab), after
 * "Exception Handling ABI for the ARM Architecture" (IHI0038), for
 * backtraces of a kernel built without frame pointers.
 *
 * Contract: the unwinder reads memory only through env->readable(), asked
 * before every word it reads (index table, extab entry, stack), so a
 * corrupt stack or table ends the walk with a reason instead of a fault.
 * It never writes memory. Addresses are target (32-bit) addresses; the
 * host address of target address A is env->host_base + A (0 on the target;
 * host tests map a fake address space). Compact-model personalities 0-2
 * are understood; anything else ends the walk.
 */
#ifndef KERNEL_UNWIND_EHABI_H
#define KERNEL_UNWIND_EHABI_H

#include <stdbool.h>
#include <stdint.h>

enum unwind_status {
	UNWIND_OK = 0,		/* one frame unwound */
	UNWIND_END,		/* EXIDX_CANTUNWIND or "refuse": the bottom of a stack */
	UNWIND_NO_ENTRY,	/* the pc is outside the index table */
	UNWIND_UNREADABLE,	/* a table or stack word failed env->readable() */
	UNWIND_BAD_ENTRY,	/* unsupported personality or malformed entry */
	UNWIND_BAD_OPCODE,	/* spare or reserved unwinding instruction */
	UNWIND_NO_PROGRESS,	/* the frame neither moved sp up nor changed pc */
	UNWIND_SP_DOWN,		/* the caller's sp is below the callee's */
	UNWIND_MAX_FRAMES,	/* the walk hit its frame limit */
};

struct unwind_env {
	uint32_t exidx_start, exidx_end;	/* [start, end): 8-byte entries, sorted */
	bool (*readable)(const struct unwind_env *env, uint32_t addr, uint32_t len);
	uintptr_t host_base;
};

/* Core registers of a frame: r[13] = sp, r[14] = lr, r[15] = pc. */
struct unwind_regs {
	uint32_t r[16];
};

/*
 * Unwind one frame: on UNWIND_OK @regs become the caller's (r[15] is the
 * return address). @return_address says r[15] is a return address rather
 * than the faulting instruction; it is then looked up one byte lower, so
 * that a call ending a function (to a noreturn callee) finds its caller's
 * entry, not the next function's. On failure @regs are unchanged.
 */
enum unwind_status unwind_frame(const struct unwind_env *env, struct unwind_regs *regs,
				bool return_address);

/*
 * Walk from @start (the interrupted pc, sp, lr and the other registers):
 * pcs[0] = start->r[15], then each return address, at most @max entries.
 * Returns the number stored; *why says why the walk ended.
 */
int unwind_backtrace(const struct unwind_env *env, const struct unwind_regs *start, uint32_t *pcs,
		     int max, enum unwind_status *why);

const char *unwind_strerror(enum unwind_status status);

#endif
