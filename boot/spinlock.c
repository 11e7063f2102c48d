/*
 * spinlock=unfair (include/arch/spinlock.h): every spin_lock() site's LDREX
 * becomes a branch to its unfair twin. Patched once by the boot CPU before
 * the others start, so no CPU runs a site while it changes; the caches are
 * made coherent for instructions as boot/static_branch.c does.
 */
#include <stddef.h>
#include <stdint.h>

#include "arch/spinlock.h"
#include "kernel/lib/panic.h"

extern const struct spin_unfair_site __start_spin_unfair_sites[], __stop_spin_unfair_sites[];	/* NOLINT(bugprone-reserved-identifier) */

bool spin_lock_unfair;

#define INSN_LDREX_MASK 0x0ff00fffu	/* LDREX Rt, [Rn]: cond 0001 1001 Rn Rt 1111 1001 1111 */
#define INSN_LDREX      0x01900f9fu
#define INSN_B          0xea000000u	/* B, condition always; imm24 = (target - pc - 8) / 4 */

size_t spin_lock_set_unfair(void)
{
	size_t nr = ((uintptr_t)__stop_spin_unfair_sites - (uintptr_t)__start_spin_unfair_sites) /
		    sizeof(struct spin_unfair_site), done = 0;

	KASSERT(!spin_lock_unfair);
	for (size_t i = 0; i < nr; i++) {
		const struct spin_unfair_site *s = &__start_spin_unfair_sites[i];
		volatile uint32_t *insn = (volatile uint32_t *)s->site;
		uint32_t b = INSN_B | (((uint32_t)(s->unfair - s->site - 8) >> 2) & 0x00ffffffu);

		KASSERT((*insn & INSN_LDREX_MASK) == INSN_LDREX);
		*insn = b;
		__asm__ volatile("mcr p15, 0, %0, c7, c11, 1\n"	/* DCCMVAU: the line to the point of unification */
				 "	dsb ish" : : "r"(s->site) : "memory");
		done += *insn == b;
	}
	__asm__ volatile("mcr p15, 0, %0, c7, c1, 0\n"	/* ICIALLUIS */
			 "	mcr p15, 0, %0, c7, c1, 6\n"	/* BPIALLIS */
			 "	dsb ish\n"
			 "	isb" : : "r"(0) : "memory");
	spin_lock_unfair = true;
	return done;
}
