/* Patching the sites of include/kernel/lib/static_branch.h (ARMv7, ARM state). */
#include "kernel/lib/static_branch.h"

#include <stddef.h>
#include <stdint.h>

#include "kernel/lib/panic.h"

extern const struct static_branch_site __start_static_branches[], __stop_static_branches[];	/* NOLINT(bugprone-reserved-identifier) */

#define INSN_NOP 0xe320f000u	/* NOP (the hint): what `nop` assembles to for ARMv7 */
#define INSN_B   0xea000000u	/* B, condition always; imm24 = (target - pc - 8) / 4 */

static uint32_t branch_to(unsigned long site, unsigned long target)
{
	return INSN_B | (((uint32_t)(target - site - 8) >> 2) & 0x00ffffffu);
}

/* The new instruction reaches every CPU's instruction side (the kernel's text is inner shareable). */
static void sync_site(unsigned long site)
{
	__asm__ volatile("mcr p15, 0, %0, c7, c11, 1\n"	/* DCCMVAU: the line to the point of unification */
			 "	dsb ish\n"
			 "	mcr p15, 0, %1, c7, c1, 0\n"	/* ICIALLUIS */
			 "	mcr p15, 0, %1, c7, c1, 6\n"	/* BPIALLIS */
			 "	dsb ish\n"
			 "	isb"
			 : : "r"(site), "r"(0) : "memory");
}

void static_branch_sync(const volatile bool *flag)
{
	bool on = *flag;
	size_t nr = ((uintptr_t)__stop_static_branches - (uintptr_t)__start_static_branches) /
		    sizeof(struct static_branch_site);

	for (size_t i = 0; i < nr; i++) {
		const struct static_branch_site *s = &__start_static_branches[i];
		volatile uint32_t *insn = (volatile uint32_t *)s->site;
		uint32_t want = on ? branch_to(s->site, s->target) : INSN_NOP;

		if (s->flag != flag || *insn == want)
			continue;
		KASSERT(*insn == INSN_NOP || *insn == branch_to(s->site, s->target));
		*insn = want;
		sync_site(s->site);
	}
}
