/*
 * Rewriting one instruction of the kernel's text (ARMv7, ARM state): the
 * static branches (boot/static_branch.c) and spinlock=unfair
 * (boot/spinlock.c). The text is mapped writable and inner shareable.
 */
#ifndef BOOT_PATCH_H
#define BOOT_PATCH_H

#include <stdint.h>

#define INSN_NOP 0xe320f000u	/* NOP (the hint): what `nop` assembles to for ARMv7 */
#define INSN_B   0xea000000u	/* B, condition always; imm24 = (target - pc - 8) / 4 */

/* The B at @site that jumps to @target (within +-32 MiB: one image). */
static inline uint32_t insn_branch(unsigned long site, unsigned long target)
{
	return INSN_B | (((uint32_t)(target - site - 8) >> 2) & 0x00ffffffu);
}

/*
 * Write @insn at @site and make it reach every CPU's instruction side: the
 * line cleaned to the point of unification, the instruction caches and
 * branch predictors invalidated inner shareable. ARMv7 allows a B and a NOP
 * to be swapped under a running CPU (ARM ARM A3.5.4); other rewrites must
 * happen while no other CPU can run the site.
 */
static inline void insn_patch(unsigned long site, uint32_t insn)
{
	*(volatile uint32_t *)site = insn;
	__asm__ volatile("mcr p15, 0, %0, c7, c11, 1\n"	/* DCCMVAU */
			 "	dsb ish\n"
			 "	mcr p15, 0, %1, c7, c1, 0\n"	/* ICIALLUIS */
			 "	mcr p15, 0, %1, c7, c1, 6\n"	/* BPIALLIS */
			 "	dsb ish\n"
			 "	isb"
			 : : "r"(site), "r"(0) : "memory");
}

#endif
