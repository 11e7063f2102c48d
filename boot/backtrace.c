/*
 * Frame-pointer backtraces (the kernel is built -marm -fno-omit-frame-pointer:
 * GCC's ARM frame record is {fp, lr} pushed with fp pointing at the saved
 * lr, the caller's fp just below it). Every frame is checked to be in RAM
 * and to move up the stack before it is read, so a corrupt chain ends the
 * walk instead of faulting.
 */
#include "boot/boot.h"
#include "boot/mmu.h"

#define MAX_FRAMES 16

void backtrace_print(uint32_t pc, uint32_t fp, void (*print)(const char *fmt, ...))
{
	print(" backtrace: %08x", (unsigned)pc);
	for (int i = 0; i < MAX_FRAMES && fp; i++) {
		const uint32_t *frame = (const uint32_t *)(uintptr_t)fp;
		uint32_t lr, next;

		if ((fp & 3) || fp < 4 || !mmu_is_ram(fp - 4, 8))
			break;
		lr = frame[0];
		next = frame[-1];
		print(" %08x", (unsigned)lr);
		if (next <= fp)
			break;	/* frames must move up the stack */
		fp = next;
	}
	print("\n");
}
