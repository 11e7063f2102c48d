/*
 * Backtraces from the EHABI unwind tables (kernel/lib/unwind_ehabi.c): the
 * kernel is built -fomit-frame-pointer -funwind-tables, and linker/common.ld
 * keeps .ARM.exidx (between __exidx_start and __exidx_end) and .ARM.extab
 * in the image. Every table and stack word is checked with mmu_is_ram()
 * before it is read, so a corrupt stack ends the walk instead of faulting.
 */
#include "boot/boot.h"
#include "boot/mmu.h"
#include "boot/trap.h"
#include "kernel/lib/format.h"
#include "kernel/lib/unwind_ehabi.h"

#define MAX_FRAMES 16	/* return addresses after the pc */

extern const uint32_t __exidx_start[], __exidx_end[];

static bool readable(const struct unwind_env *env, uint32_t addr, uint32_t len)
{
	(void)env;
	return mmu_is_ram(addr, len);
}

void backtrace_print(const struct trap_frame *tf, void (*print)(const char *fmt, ...))
{
	const struct unwind_env env = {
		.exidx_start = (uint32_t)(uintptr_t)__exidx_start,
		.exidx_end = (uint32_t)(uintptr_t)__exidx_end,
		.readable = readable,
	};
	struct unwind_regs regs;
	uint32_t pcs[1 + MAX_FRAMES];
	char line[16 + 9 * (1 + MAX_FRAMES)];
	int n, len;

	for (int i = 0; i < 13; i++)
		regs.r[i] = tf->r[i];
	regs.r[13] = tf->sp;	/* the interrupted mode's banked sp and lr */
	regs.r[14] = tf->lr;
	regs.r[15] = tf->pc;
	n = unwind_backtrace(&env, &regs, pcs, 1 + MAX_FRAMES, NULL);
	/* One print: a line written piecewise could interleave with other CPUs' output. */
	len = ksnprintf(line, sizeof(line), " backtrace:");
	for (int i = 0; i < n; i++)
		len += ksnprintf(line + len, sizeof(line) - (size_t)len, " %08x", (unsigned)pcs[i]);
	print("%s\n", line);
}

/*
 * Noinline, so its own unwind entry describes the frame the registers are
 * taken in: the walk starts here, then panic(), then whoever called it.
 */
__attribute__((noinline)) void backtrace_here(void (*print)(const char *fmt, ...))
{
	struct trap_frame tf = { { 0 }, 0, 0, 0, 0, 0 };

	__asm__ volatile("mov %0, sp\n\tmov %1, lr\n\tadr %2, ." : "=r"(tf.sp), "=r"(tf.lr), "=r"(tf.pc));
	backtrace_print(&tf, print);
}

/*
 * The personality routines the tables name. Only a C++ runtime would call
 * them; defining them here keeps libgcc's unwinder out of the image.
 */
void __aeabi_unwind_cpp_pr0(void);
void __aeabi_unwind_cpp_pr1(void);
void __aeabi_unwind_cpp_pr2(void);
void __aeabi_unwind_cpp_pr0(void) {}
void __aeabi_unwind_cpp_pr1(void) {}
void __aeabi_unwind_cpp_pr2(void) {}
